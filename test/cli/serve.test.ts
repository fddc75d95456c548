/**
 * `mds serve` as an operator starts it (decisions §11, README first run):
 * --first-run on a fresh SQLite file seeds the sample data and prints a demo
 * key that works; a second first run prints none; usage recorded while serving
 * is what `mds usage` reports; an import is seen by the running server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, freshDatabase } from '../support/backends.js';
import { type CliServer, mds, serve } from '../support/cli.js';
import { conformingFetch } from '../support/openapi.js';

const KEY = /mds_(live|test)_[a-z0-9]{12}_[0-9A-Za-z]{49}/g;
const BANNER = /^Market Data Service listening on http:\/\/127\.0\.0\.1:(\d+)$/;

async function latest(url: string, key: string, query = 'currency=EUR,USD') {
  const { res, text } = await conformingFetch(`${url}/v1/rates/latest?${query}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  return { status: res.status, body: JSON.parse(text) as { data: Array<Record<string, unknown>> } };
}

describe('mds serve', () => {
  let db: Database;
  const servers: CliServer[] = [];
  const start = async (args: string[]) => {
    const s = await serve(args, { db: db.url });
    servers.push(s);
    return s;
  };
  let key: string;
  let grantId: string;

  beforeAll(async () => {
    db = await freshDatabase('sqlite');
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await db?.drop();
  });

  it('--first-run on a fresh store prints the URL, a demo key and a curl line that work', async () => {
    const s = await start(['--first-run']);
    const lines = s.stdout.split('\n');
    const m = BANNER.exec(lines[0]!);
    expect(m).not.toBeNull();
    expect(Number(m![1])).toBeGreaterThan(0);
    expect(s.url).toBe(`http://127.0.0.1:${m![1]}`);
    expect(s.stdout).toContain('Loaded the sample data set (SYNTHETIC SAMPLE DATA');
    // Where to go next: the interactive reference, the charts page and the document.
    expect(lines).toContain(`Interactive API reference: ${s.url}/docs/`);
    expect(lines).toContain(`Charts (paste your key): ${s.url}/charts`);
    expect(lines).toContain(`OpenAPI document: ${s.url}/openapi.json`);

    const keys = [...new Set(s.stdout.match(KEY))];
    expect(keys).toHaveLength(1);
    key = keys[0]!;
    expect(key.startsWith('mds_live_')).toBe(true);
    expect(s.stdout).toContain(`Demo API key (shown once, store it now):\n  ${key}\n`);
    expect(lines).toContain(
      `  curl -s -H "Authorization: Bearer ${key}" "${s.url}/v1/rates/latest?currency=EUR,USD"`,
    );

    const res = await latest(s.url, key);
    expect(res.status).toBe(200);
    expect(res.body.data.map((r) => r.currency)).toEqual(['EUR', 'USD']);
    expect(res.body.data.every((r) => r.source === 'parallel' && r.quote === 'DZD')).toBe(true);
    // Without the key: 401.
    expect((await fetch(`${s.url}/v1/rates/latest?currency=EUR,USD`)).status).toBe(401);

    const listed = (await mds(['keys', 'list', '--json'], { db: db.url })).json().keys;
    expect(listed).toHaveLength(1);
    expect(key.startsWith(`${listed[0].prefix}_`)).toBe(true);
    grantId = listed[0].grantId;
  });

  it('usage counts the requests the server answered', async () => {
    // One 200 so far; two more.
    for (let i = 0; i < 2; i++) expect((await latest(servers[0]!.url, key)).status).toBe(200);
    await servers[0]!.stop(); // a graceful stop writes the usage still pending
    const usage = (await mds(['usage', grantId, '--json'], { db: db.url })).json();
    expect(usage).toMatchObject({ grantId, requestsUsed: 3 });
    expect(usage.requestsRemaining).toBe(usage.requestLimit - 3);
  });

  it('a second --first-run on the same store prints no key; the first key still works', async () => {
    const s = await start(['--first-run']);
    expect(s.stdout.split('\n')[0]).toMatch(BANNER);
    expect(s.stdout.match(KEY)).toBeNull();
    expect(s.stdout).not.toContain('Loaded the sample data set');
    expect(s.stdout).toContain('The store already has accounts');
    expect(s.stdout).toContain(
      `curl -s -H "Authorization: Bearer <your key>" "${s.url}/v1/rates/latest?currency=EUR,USD"`,
    );
    expect((await latest(s.url, key)).status).toBe(200);
    const listed = (await mds(['keys', 'list', '--json'], { db: db.url })).json().keys;
    expect(listed).toHaveLength(1);
  });

  it('a running server sees an import within 2 seconds', async () => {
    const s = servers[1]!;
    const updatedAt = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000).toISOString();
    const csv = `currency,source,buy,sell,updatedAt\nEUR,parallel,987.654321,990.5,${updatedAt}\n`;
    // A marker no market quotes: the plausibility guards (docs/decisions.md, 51) are told it was reviewed.
    const imported = await mds(['import', 'rates', '-', '--json', '--accept-outliers'], {
      db: db.url,
      input: csv,
    });
    expect(imported.stderr).toBe('');
    expect(imported.json()).toMatchObject({ received: 1, inserted: 1 });
    const importedAt = Date.now();
    let seen: Record<string, unknown> | undefined;
    while (Date.now() - importedAt < 5_000) {
      const res = await latest(s.url, key, 'currency=EUR');
      expect(res.status).toBe(200);
      if (res.body.data[0]!.updatedAt === updatedAt) {
        seen = res.body.data[0];
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(seen).toMatchObject({ currency: 'EUR', buy: 987.654321, sell: 990.5, updatedAt });
    expect(Date.now() - importedAt).toBeLessThan(2_500);
  });

  it('serve --json prints one JSON document; a bad port is refused', async () => {
    // One serving process per SQLite file (limits are counted in it): the previous one goes first.
    await servers[1]!.stop();
    const s = await start(['--json']);
    const doc = JSON.parse(s.stdout);
    expect(s.stdout.trim().split('\n')).toHaveLength(1);
    expect(doc).toMatchObject({ url: s.url, seeded: false });
    expect(doc.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(doc.key).toBeUndefined();
    expect(doc.example).toBe(
      `curl -s -H "Authorization: Bearer <your key>" "${s.url}/v1/rates/latest?currency=EUR,USD"`,
    );
    expect((await fetch(`${s.url}/healthz`)).status).toBe(200);

    const [big, word] = await Promise.all([
      mds(['serve', '--port', '70000'], { db: db.url }),
      mds(['serve', '--port', 'http', '--json'], { db: db.url }),
    ]);
    expect(big.status).toBe(2);
    expect(big.stdout).toBe('');
    expect(big.stderr).toBe('mds: --port: must be 0 to 65535\n');
    expect(word.status).toBe(2);
    expect(word.errorJson()).toEqual({ error: { message: '--port: must be 0 to 65535' } });
  });
});
