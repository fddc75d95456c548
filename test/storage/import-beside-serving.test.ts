/**
 * An import never stalls a serving process (decisions 55). `mds serve` answers
 * a steady stream of requests while `mds import rates` writes 150,000 new
 * observations from another process into the same store: no 503, no request
 * lost or left unanswered, answers keep coming while the import holds the
 * store's write lock (SQLite), the imported data is served afterwards, and the
 * usage counted is exactly the 200 answers. No timing is asserted.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeImportFile } from '../../bench/import.js';
import { ENTITLEMENTS } from '../../src/domain/scopes.js';
import { generateSample } from '../../src/sample/generate.js';
import { type BackendName, type Database, freshDatabase, POSTGRES_URL } from '../support/backends.js';
import { track } from '../support/children.js';
import { type CliServer, mds, serve } from '../support/cli.js';
import { createAccount, createGrant, createKey } from '../support/keys.js';
import { CLI } from '../support/server-process.js';

const RECORDS = 150_000;
const CLIENTS = 4;
/** A request that has not been answered by then counts as lost (the old code answered 503 after 5 s). */
const DEADLINE_MS = 15_000;
const END = '2026-01-10';
const LIMIT = 5_000_000_000;

interface Tally {
  answers: Map<number, number>;
  failures: string[];
  /** /healthz and /v1/rates/latest answers received while another process held the store's write lock. */
  duringLock: number;
}

/** Whether another connection holds the SQLite store's write lock now (a probe that never waits). */
function lockProbe(path: string): () => boolean {
  const db = new BetterSqlite3(path, { timeout: 0 });
  const begin = db.prepare('begin immediate');
  const rollback = db.prepare('rollback');
  return () => {
    try {
      begin.run();
      rollback.run();
      return false;
    } catch (err) {
      if ((err as { code?: string }).code?.startsWith('SQLITE_BUSY')) return true;
      throw err;
    }
  };
}

const cases: BackendName[] = POSTGRES_URL ? ['sqlite', 'postgres'] : ['sqlite'];

describe.each(cases)('an import beside a serving process (%s)', (backend) => {
  let db: Database;
  let server: CliServer | undefined;
  let key: string;
  let grantId: string;
  let codes: string[];
  const files: string[] = [];

  beforeAll(async () => {
    db = await freshDatabase(backend);
    const store = db.open();
    try {
      await store.migrate();
      const sample = generateSample({ endDate: '2024-12-31', days: 30 });
      await store.imports.import({ kind: 'assets', records: sample.assets });
      codes = sample.assets.filter((a) => a.type === 'currency').map((a) => a.code);
      const account = await createAccount(store, { name: 'Import beside serving' });
      const grant = await createGrant(store, {
        accountId: account.id,
        plan: 'test',
        scopes: [...ENTITLEMENTS],
        monthlyRequestLimit: LIMIT,
        requestsPerMinute: LIMIT,
        validFrom: Date.now() - 86_400_000,
      });
      grantId = grant.id;
      key = (await createKey(store, { grantId, label: 'load' })).key;
    } finally {
      await store.close();
    }
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    for (const f of files) rmSync(f, { force: true });
    await db?.drop();
  });

  it('keeps answering every request, counts each 200 once, and serves the import afterwards', async () => {
    const file = join(tmpdir(), `mds-rates-${process.pid}-${backend}.ndjson`);
    files.push(file);
    await writeImportFile(file, RECORDS, codes, Date.parse(`${END}T00:00:00Z`));
    // Every series' oldest observation first (so that the latest rates answer 200
    // before the import, and the import's change check has a value to compare).
    const seen = new Set<string>();
    const seed = readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => {
        const m = /"currency":"(\w+)","source":"(\w+)"/.exec(line);
        if (!m || seen.has(m[0])) return false;
        seen.add(m[0]);
        return true;
      });
    const seeded = await mds(['import', 'rates', '-', '--json'], {
      db: db.url,
      input: `${seed.join('\n')}\n`,
    });
    expect(seeded.status).toBe(0);
    server = await serve([], { db: db.url });
    const url = server.url;
    const tally: Tally = { answers: new Map(), failures: [], duringLock: 0 };
    const locked = backend === 'sqlite' ? lockProbe(db.url) : () => false;
    let lockSeen = false;
    let latest200 = 0;

    const one = async (path: string, auth: boolean) => {
      try {
        const res = await fetch(`${url}${path}`, {
          headers: auth ? { authorization: `Bearer ${key}` } : {},
          signal: AbortSignal.timeout(DEADLINE_MS),
        });
        await res.arrayBuffer();
        tally.answers.set(res.status, (tally.answers.get(res.status) ?? 0) + 1);
        if (auth && res.status === 200) latest200++;
        if (res.status !== 200) tally.failures.push(`${path}: ${res.status}`);
        if (lockSeen && locked()) tally.duringLock++;
      } catch (err) {
        tally.failures.push(`${path}: ${(err as Error).message}`);
      }
    };

    let importing = true;
    const clients = Array.from({ length: CLIENTS }, async (_, i) => {
      while (importing) await one(i === 0 ? '/healthz' : '/v1/rates/latest?currency=EUR,USD', i !== 0);
    });

    // The import, as an operator runs it, beside the load.
    const child: ChildProcess = spawn(
      process.execPath,
      [CLI, 'import', 'rates', file, '--db', db.url, '--json'],
      {
        env: { ...process.env, MDS_LOG_LEVEL: 'warn' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let errText = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
    });
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      errText += d;
    });
    track(child, 'mds import rates');
    const exited = once(child, 'close');
    // Watch for the import's write lock while it runs (SQLite).
    const watching = (async () => {
      while (child.exitCode === null) {
        if (!lockSeen && locked()) lockSeen = true;
        await new Promise((r) => setTimeout(r, 2));
      }
    })();
    const [code] = (await exited) as [number | null];
    await watching;
    importing = false;
    await Promise.all(clients);

    expect(errText).toBe('');
    expect(code).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ inserted: RECORDS - seed.length, unchanged: seed.length });
    expect(tally.failures).toEqual([]);
    expect(tally.answers.get(503) ?? 0).toBe(0);
    if (backend === 'sqlite') {
      // The import's transaction was seen, and answers kept arriving while it held the lock.
      expect(lockSeen).toBe(true);
      // (A server that waits for the lock still delivers the few answers already
      // in flight when the import took it: at most one per client.)
      expect(tally.duringLock).toBeGreaterThan(5 * CLIENTS);
    }

    // The imported observations are served (the watcher reloads within its poll).
    const newest = `${END}T00:00:00.000Z`;
    const deadline = Date.now() + 10_000;
    let served = '';
    while (Date.now() < deadline) {
      const res = await fetch(`${url}/v1/rates/latest?currency=${codes[0]}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      const body = (await res.json()) as { data: Array<{ updatedAt: string }> };
      if (res.status === 200) latest200++;
      served = body.data[0]?.updatedAt ?? '';
      if (served === newest) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(served).toBe(newest);

    // Usage: exactly the 200 answers (a graceful stop writes what is pending).
    await server.stop();
    const usage = (await mds(['usage', grantId, '--json'], { db: db.url })).json();
    expect(usage.requestsUsed).toBe(latest200);
  }, 120_000);
});
