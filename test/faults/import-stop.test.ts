/**
 * A SIGTERM while admin imports run (docs/decisions.md 91, docs/reliability.md):
 * `mds serve` exits within the drain plus the bounded close, as it does
 * without them, since the imports run on threads of their own and the event
 * loop that runs the stop is free; each import is then in the store whole or
 * not at all, on SQLite and PostgreSQL.
 */
import { once } from 'node:events';
import { createReadStream, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createAdminToken } from '../../src/use-cases/admin-tokens.js';
import { TEST_ACTOR } from '../support/admin.js';
import { backends, type Database, freshDatabase } from '../support/backends.js';
import { type ServerProcess, spawnServer } from '../support/server-process.js';
import { waitFor } from '../support/wait.js';
import { seed } from './support.js';

const DRAIN_MS = 200;
/** The drain, the bounded close (10 s), and room for a loaded machine; the watchdog's SIGKILL would be a signal exit. */
const EXIT_WITHIN_MS = DRAIN_MS + 10_000 + 5_000;
const ROWS = 300_000;

/** ROWS EUR parallel quotes a minute apart from `from`, as an NDJSON file of about 30 MB. */
function ndjsonFile(dir: string, name: string, from: number): string {
  const path = join(dir, name);
  const lines: string[] = [];
  for (let i = 0; i < ROWS; i++) {
    const updatedAt = new Date(from + i * 60_000).toISOString();
    lines.push(`{"currency":"EUR","source":"parallel","buy":240,"sell":245,"updatedAt":"${updatedAt}"}`);
  }
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

/** POSTs a file as the body; resolves with the status, or the error when the connection ends first. */
function postFile(adminUrl: string, token: string, file: string) {
  const sent = { done: false };
  const answer = new Promise<number | string>((resolve) => {
    const req = http.request(`${adminUrl}/admin/v1/data/rates`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/x-ndjson',
        'content-length': statSync(file).size,
      },
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', (err) => resolve(err.message));
    });
    req.on('error', (err) => resolve(err.message));
    req.on('finish', () => {
      sent.done = true;
    });
    createReadStream(file).pipe(req);
  });
  return { answer, sent };
}

async function gauge(adminUrl: string): Promise<number> {
  const text = await (await fetch(`${adminUrl}/metrics`)).text();
  return Number(/^mds_admin_imports (\d+)/m.exec(text)?.[1] ?? -1);
}

describe.each(backends())('a SIGTERM during admin imports on $name', (backend) => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('exits within the drain plus 10 s, each import whole or absent', { timeout: 90_000 }, async () => {
    const db: Database = await freshDatabase(backend.name);
    cleanups.push(() => db.drop());
    const dir = mkdtempSync(join(tmpdir(), 'mds-import-stop-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const starts = [Date.UTC(1990, 0, 1), Date.UTC(1991, 0, 1)];
    const files = starts.map((from, i) => ndjsonFile(dir, `rates-${i}.ndjson`, from));

    let store = db.open();
    await store.migrate();
    await seed(store);
    const admin = await createAdminToken(store, TEST_ACTOR, { label: 'feed', scopes: ['data:write'] });
    if (!admin.ok) throw new Error(JSON.stringify(admin.error));
    await store.close();

    const server: ServerProcess = await spawnServer({
      db: db.url,
      redisUrl: backend.redisUrl,
      redisPrefix: backend.redisPrefix,
      env: { MDS_ADMIN_PORT: '0', MDS_DRAIN_MS: String(DRAIN_MS) },
    });
    cleanups.push(() => server.kill());
    const adminUrl = /Metrics: (\S+)\/metrics/.exec(server.stdout())?.[1];
    expect(adminUrl, server.stdout()).toBeDefined();

    const posts = files.map((f) => postFile(adminUrl!, admin.value.token, f));
    // Both bodies sent and both imports still holding their place: running on their threads.
    await waitFor(async () => posts.every((p) => p.sent.done) && (await gauge(adminUrl!)) === 2, {
      timeout: 30_000,
      what: 'two imports running',
    });
    // The serving loop is free meanwhile: /healthz answers.
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);

    const exited = once(server.proc, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    server.proc.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'still running'>((resolve) => {
      timer = setTimeout(() => resolve('still running'), EXIT_WITHIN_MS);
    });
    const outcome = await Promise.race([exited, late]);
    clearTimeout(timer);
    // A graceful exit (0), not the deadline's (1) nor the watchdog's SIGKILL.
    expect(outcome).toEqual([0, null]);

    // Each import answered 200 (done within the drain) or 503, or lost its connection.
    for (const answer of await Promise.all(posts.map((p) => p.answer))) {
      expect([200, 503].includes(answer as number) || typeof answer === 'string', String(answer)).toBe(true);
    }
    store = db.open();
    try {
      const records = await store.imports.listImports(10);
      let whole = 0;
      for (const from of starts) {
        const to = from + (ROWS - 1) * 60_000;
        const points = await store.imports.seriesAround(
          { kind: 'rates', currency: 'EUR', source: 'parallel' },
          from,
          to,
        );
        const stored = points.filter((p) => p.updatedAt >= from && p.updatedAt <= to).length;
        // All or nothing: every record of the file, or none of them.
        expect([0, ROWS]).toContain(stored);
        if (stored === ROWS) whole++;
      }
      // An import's record exists exactly when its records do.
      expect(records.filter((r) => r.kind === 'rates' && r.received === ROWS).length).toBe(whole);
    } finally {
      await store.close();
    }
  });
});
