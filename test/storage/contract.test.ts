/**
 * The storage contract: every backend behind the Store interface must pass
 * these, from this one file.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Authenticator } from '../../src/access/authenticator.js';
import { generateKey } from '../../src/domain/keys.js';
import { StoreUnavailableError } from '../../src/storage/errors.js';
import { openStore } from '../../src/storage/open.js';
import { type Store, UnknownAssetsError } from '../../src/storage/store.js';
import {
  type BackendName,
  backends,
  type Database,
  freshDatabase,
  POSTGRES_URL,
} from '../support/backends.js';
import { startProxy, type TcpProxy } from '../support/proxy.js';

const T0 = Date.UTC(2026, 10, 1, 9);
const DAY = 86_400_000;
const asset = (code: string) => ({
  code,
  symbol: code,
  names: { en: `${code} en`, fr: `${code} fr`, ar: `${code} ar` },
  type: 'currency' as const,
});

describe.each(backends())('store contract on $name', ({ name }) => {
  let db: Database;
  let store: Store;
  beforeAll(async () => {
    db = await freshDatabase(name);
    store = db.open();
  });
  afterAll(async () => {
    await store?.close();
    await db?.drop();
  });

  it('migrates once, then has nothing to apply', async () => {
    expect(await store.migrate()).toEqual([
      '0001_market_data',
      '0002_access',
      '0003_minute_usage',
      '0004_imports_and_revisions',
      '0005_usage_file',
      '0006_operator',
      '0007_usage_batches_daily',
      '0008_webhooks',
      '0009_consume_function',
      '0010_consume_row_updates',
      '0011_rates_asset_check',
    ]);
    expect(await store.migrate()).toEqual([]);
    expect(await store.setting('cursor_secret')).toMatch(/^[\w-]{40,}$/);
  });

  it('imports assets idempotently and bumps the data version only on change', async () => {
    const v0 = (await store.versions()).data;
    expect(
      await store.imports.import({ kind: 'assets', records: [asset('EUR'), asset('USD')] }),
    ).toMatchObject({
      inserted: 2,
      updated: 0,
      unchanged: 0,
    });
    const v1 = (await store.versions()).data;
    expect(v1).toBeGreaterThan(v0);
    expect(
      await store.imports.import({
        kind: 'assets',
        records: [asset('EUR'), { ...asset('USD'), symbol: '$' }],
      }),
    ).toMatchObject({
      inserted: 0,
      updated: 1,
      unchanged: 1,
    });
    expect(await store.imports.import({ kind: 'assets', records: [asset('EUR')] })).toMatchObject({
      unchanged: 1,
    });
    expect((await store.versions()).data).toBe(v1 + 1);
    expect((await store.market.listAssets()).map((a) => a.code)).toEqual(['EUR', 'USD']);
    expect(await store.imports.unknownAssets(['EUR', 'XXX', 'XXX', 'AAA'])).toEqual(['AAA', 'XXX']);
  });

  it('imports rates with exact counts and round-trips integers exactly', async () => {
    const records = [0, 1, 2, 3, 4].map((d) => ({
      currency: 'EUR',
      source: 'parallel' as const,
      buy: 264_000_000 + d,
      sell: 266_123_456,
      updatedAt: T0 + d * DAY + 123,
    }));
    expect(await store.imports.import({ kind: 'rates', records })).toMatchObject({
      received: 5,
      inserted: 5,
    });
    const again = await store.imports.import({
      kind: 'rates',
      records: [...records.slice(0, 4), { ...records[4]!, sell: 1 }],
    });
    expect(again).toMatchObject({ inserted: 0, updated: 1, unchanged: 4 });
    await store.imports.import({
      kind: 'rates',
      records: [{ currency: 'EUR', source: 'official', buy: 151_200_000, sell: 151_500_000, updatedAt: T0 }],
    });
    const latest = await store.market.latestRates();
    expect(latest).toEqual([
      { currency: 'EUR', source: 'official', buy: 151_200_000, sell: 151_500_000, updatedAt: T0 },
      { currency: 'EUR', source: 'parallel', buy: 264_000_004, sell: 1, updatedAt: T0 + 4 * DAY + 123 },
    ]);
  });

  it('pages rate history newest first by keyset', async () => {
    const q = { currency: 'EUR', source: 'parallel' as const, from: T0 - DAY, to: T0 + 10 * DAY, limit: 2 };
    const first = await store.market.rateHistory(q);
    expect(first.map((r) => r.updatedAt)).toEqual([T0 + 4 * DAY + 123, T0 + 3 * DAY + 123]);
    const second = await store.market.rateHistory({ ...q, before: first[1]!.updatedAt });
    expect(second.map((r) => r.updatedAt)).toEqual([T0 + 2 * DAY + 123, T0 + DAY + 123]);
    const windowed = await store.market.rateHistory({
      ...q,
      from: T0 + DAY,
      to: T0 + 2 * DAY + 123,
      limit: 10,
    });
    expect(windowed).toHaveLength(2);
  });

  it("gives a series' latest observation of each UTC day in a window, newest first", async () => {
    // Several a day on some days, none on others; T0 is 09:00 UTC.
    const at = [T0 - 9 * 3_600_000, T0, T0 + 3_600_000, T0 + 2 * DAY, T0 + 3 * DAY - 9 * 3_600_000 - 1];
    await store.imports.import({
      kind: 'rates',
      records: at.map((updatedAt, i) => ({
        currency: 'USD',
        source: 'official' as const,
        buy: 130_000_000 + i,
        sell: 131_000_000,
        updatedAt,
      })),
    });
    const q = { currency: 'USD', source: 'official' as const, from: T0 - DAY, to: T0 + 10 * DAY };
    const days = await store.market.dailyRates(q);
    // The last instant is 23:59:59.999 of day T0+2 (the day before T0+3 at midnight).
    expect(days.map((r) => [r.updatedAt, r.buy])).toEqual([
      [T0 + 3 * DAY - 9 * 3_600_000 - 1, 130_000_004],
      [T0 + 3_600_000, 130_000_002],
    ]);
    expect(days[0]).toMatchObject({ currency: 'USD', source: 'official', sell: 131_000_000 });
    // The window's ends cut the instants, not the days.
    const cut = await store.market.dailyRates({ ...q, from: T0 - 9 * 3_600_000, to: T0 });
    expect(cut.map((r) => r.updatedAt)).toEqual([T0]);
    expect(await store.market.dailyRates({ ...q, source: 'transfer' })).toEqual([]);
  });

  it('keeps gold in purity order and pages ties by purity', async () => {
    const gold = (['24K', '18K', '21K'] as const).flatMap((purity, i) =>
      [0, 1].map((d) => ({ purity, buy: 30_000_000_000 + i, sell: 31_000_000_000, updatedAt: T0 + d * DAY })),
    );
    expect(await store.imports.import({ kind: 'gold', records: gold })).toMatchObject({ inserted: 6 });
    expect((await store.market.latestGold()).map((g) => g.purity)).toEqual(['18K', '21K', '24K']);
    const q = { from: T0 - DAY, to: T0 + 2 * DAY, limit: 2 };
    const p1 = await store.market.goldHistory(q);
    expect(p1.map((g) => [g.updatedAt, g.purity])).toEqual([
      [T0 + DAY, '18K'],
      [T0 + DAY, '21K'],
    ]);
    const p2 = await store.market.goldHistory({ ...q, after: { updatedAt: T0 + DAY, purity: '21K' } });
    expect(p2.map((g) => [g.updatedAt, g.purity])).toEqual([
      [T0 + DAY, '24K'],
      [T0, '18K'],
    ]);
  });

  it('stores accounts, grants and keys, and moves the access version on each change', async () => {
    const v0 = (await store.versions()).access;
    await store.access.createAccount({ id: 'acc_1', name: 'A', email: 'a@example.com', createdAt: T0 });
    await store.access.createGrant({
      id: 'grt_1',
      accountId: 'acc_1',
      provider: 'manual',
      plan: 'pro',
      status: 'active',
      scopes: ['read', 'assets:read'],
      validFrom: T0,
      validUntil: T0 + 365 * DAY,
      monthlyRequestLimit: 1000,
      requestsPerMinute: 10,
      createdAt: T0,
      updatedAt: T0,
    });
    await store.access.createKey({
      publicId: 'abcdefabcdef',
      grantId: 'grt_1',
      environment: 'live',
      digest: 'f'.repeat(64),
      label: 'k',
      scopes: null,
      status: 'active',
      expiresAt: null,
      lastUsedAt: null,
      createdAt: T0,
      revokedAt: null,
    });
    expect((await store.versions()).access).toBe(v0 + 3);
    expect(await store.access.getGrant('grt_1')).toMatchObject({
      scopes: ['read', 'assets:read'],
      monthlyRequestLimit: 1000,
    });
    expect(await store.access.getKey('abcdefabcdef')).toMatchObject({
      scopes: null,
      status: 'active',
      lastUsedAt: null,
    });
    expect(await store.access.countAccounts()).toBe(1);

    const updated = await store.access.updateGrant(
      'grt_1',
      { status: 'suspended', requestsPerMinute: 5 },
      T0 + 1,
    );
    expect(updated).toMatchObject({ status: 'suspended', requestsPerMinute: 5, updatedAt: T0 + 1 });
    expect(await store.access.updateGrant('nope', { status: 'active' }, T0)).toBeUndefined();

    await store.access.touchKeys([{ publicId: 'abcdefabcdef', at: T0 + 100 }]);
    await store.access.touchKeys([{ publicId: 'abcdefabcdef', at: T0 + 50 }]);
    expect((await store.access.getKey('abcdefabcdef'))?.lastUsedAt).toBe(T0 + 100);

    const revoked = await store.access.revokeKey('abcdefabcdef', T0 + 200);
    expect(revoked).toMatchObject({ status: 'revoked', revokedAt: T0 + 200 });
    // Revocation is final and keeps its first time.
    expect(await store.access.revokeKey('abcdefabcdef', T0 + 300)).toMatchObject({ revokedAt: T0 + 200 });
    expect(await store.access.revokeKey('unknown12345', T0)).toBeUndefined();
    expect((await store.access.listKeys('grt_1')).map((k) => k.publicId)).toEqual(['abcdefabcdef']);
    expect(await store.access.listKeys('grt_other')).toEqual([]);
  });

  it('adds usage durably per grant and period', async () => {
    expect(await store.usage.getUsage('grt_1', '2026-11')).toBe(0);
    await store.usage.addUsage(
      [
        { grantId: 'grt_1', period: '2026-11', count: 3 },
        { grantId: 'grt_1', period: '2026-12', count: 1 },
      ],
      T0,
    );
    await store.usage.addUsage([{ grantId: 'grt_1', period: '2026-11', count: 2 }], T0);
    expect(await store.usage.getUsage('grt_1', '2026-11')).toBe(5);
    expect(await store.usage.getUsage('grt_1', '2026-12')).toBe(1);
  });

  it('checks and consumes exactly across connections (the store limiter of several instances)', async () => {
    const other = db.open();
    try {
      const W = Date.UTC(2026, 10, 20, 8, 0);
      const req = (count: number, window = W) => ({
        grantId: 'grt_1',
        period: '2026-10',
        window,
        requestsPerMinute: 10,
        monthlyRequestLimit: 25,
        count,
      });
      // Two connections (two instances) race batches for one grant: exactly 10 pass the minute.
      const outcomes = await Promise.all(
        Array.from({ length: 8 }, (_, i) => (i % 2 ? store : other).usage.consumeUsage([req(3)], W + i)),
      );
      expect(outcomes.flat().reduce((n, o) => n + o.allowed, 0)).toBe(10);
      expect(await store.usage.getMinuteUsage('grt_1', W)).toBe(10);
      expect(await store.usage.getUsage('grt_1', '2026-10')).toBe(10);
      // The next window starts afresh; the month goes on counting, up to its limit.
      const [next] = await other.usage.consumeUsage([req(20, W + 60_000)], W + 60_000);
      expect(next).toEqual({ window: W + 60_000, minuteUsed: 0, monthUsed: 10, allowed: 10 });
      const [late] = await store.usage.consumeUsage([req(9, W)], W + 1);
      // A caller still in the old window counts in the newer one the store holds.
      expect(late).toEqual({ window: W + 60_000, minuteUsed: 10, monthUsed: 20, allowed: 0 });
      await store.usage.releaseMinute('grt_1', W + 60_000, 4);
      const [last] = await store.usage.consumeUsage([req(9, W + 60_000)], W + 60_001);
      expect(last).toEqual({ window: W + 60_000, minuteUsed: 6, monthUsed: 20, allowed: 4 });
      expect(await store.usage.getUsage('grt_1', '2026-10')).toBe(24);
    } finally {
      await other.close();
    }
  });

  it('refuses rates for an asset outside the directory without writing anything', async () => {
    const before = await store.market.latestRates();
    const imports = await store.imports.listImports(100);
    const rate = (currency: string, at = T0) => ({
      currency,
      source: 'transfer' as const,
      buy: 1,
      sell: 2,
      updatedAt: at,
    });
    const refused = store.imports.import({
      kind: 'rates',
      records: [rate('EUR'), rate('ZZZ'), rate('AAA'), rate('ZZZ', T0 + DAY)],
    });
    // The store's own error, naming each unknown currency once (store.ts, UnknownAssetsError).
    await expect(refused).rejects.toBeInstanceOf(UnknownAssetsError);
    await expect(refused).rejects.toMatchObject({ currencies: ['AAA', 'ZZZ'] });
    expect(await store.market.latestRates()).toEqual(before);
    expect(await store.imports.listImports(100)).toEqual(imports);
  });

  it('stores text exactly as given, quotes and backslashes included (the bulk paths build their own literals)', async () => {
    const odd = 'Q"\\{x},y';
    await store.imports.import({ kind: 'assets', records: [asset(odd)] });
    const rate = {
      currency: odd,
      source: 'official' as const,
      buy: 7_000_000,
      sell: 8_000_000,
      updatedAt: T0,
    };
    expect(await store.imports.import({ kind: 'rates', records: [rate] })).toMatchObject({ inserted: 1 });
    expect((await store.market.latestRates()).filter((r) => r.currency === odd)).toEqual([rate]);
    expect(await store.imports.import({ kind: 'rates', records: [rate] })).toMatchObject({ unchanged: 1 });
  });

  it('counts large imports exactly: new, changed and unchanged records mixed in every chunk', async () => {
    // Large batches are written many rows per statement (SQLite); a chunk that
    // meets stored keys must still tell inserted, updated and unchanged apart.
    const series = (n: number, from = 0) =>
      Array.from({ length: n }, (_, k) => ({
        currency: 'USD',
        source: 'transfer' as const,
        buy: 200_000_000 + from + k,
        sell: 210_000_000 + from + k,
        updatedAt: T0 + (from + k) * 3_600_000,
      }));
    const first = series(1_050);
    expect(await store.imports.import({ kind: 'rates', records: first })).toMatchObject({ inserted: 1_050 });
    // Every 7th stored record changed, then 230 new ones: chunks of stored, mixed and new records.
    const second = [
      ...first.map((r, k) => (k % 7 === 0 ? { ...r, sell: r.sell + 1 } : r)),
      ...series(230, 1_050),
    ];
    expect(await store.imports.import({ kind: 'rates', records: second })).toMatchObject({
      received: 1_280,
      inserted: 230,
      updated: 150,
      unchanged: 900,
    });
    const stored = await store.market.rateHistory({
      currency: 'USD',
      source: 'transfer',
      from: T0,
      to: T0 + 2_000 * 3_600_000,
      limit: 2_000,
    });
    expect(stored).toHaveLength(1_280);
    expect([...stored].reverse()).toEqual(second);

    const gold = Array.from({ length: 330 }, (_, k) => ({
      purity: (['18K', '21K', '24K'] as const)[k % 3]!,
      buy: 40_000_000_000 + k,
      sell: 41_000_000_000 + k,
      updatedAt: T0 + 1_000 * DAY + Math.floor(k / 3) * DAY,
    }));
    expect(await store.imports.import({ kind: 'gold', records: gold })).toMatchObject({ inserted: 330 });
    const changed = gold.map((g, k) => (k === 200 ? { ...g, buy: 1 } : g));
    expect(await store.imports.import({ kind: 'gold', records: changed })).toMatchObject({
      updated: 1,
      unchanged: 329,
    });
  });
});

/**
 * A store that cannot serve now, whatever the backend and whatever its driver
 * says, fails with StoreUnavailableError: callers test the type,
 * never a driver's codes or messages. The driver's code stays readable on it.
 */
describe.each(backends())('store failures on $name', ({ name }) => {
  const cleanup: Array<() => Promise<void> | void> = [];
  afterAll(async () => {
    for (const step of cleanup.reverse()) await step();
  });

  /** A store at an address where there is none: a directory, or a port nobody listens on. */
  async function nowhere(backend: BackendName): Promise<string> {
    if (backend === 'sqlite') {
      const dir = mkdtempSync(join(tmpdir(), 'mds-nowhere-'));
      cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
      return dir;
    }
    const server = net.createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const { port } = server.address() as net.AddressInfo;
    await new Promise<void>((r) => server.close(() => r()));
    const url = new URL(POSTGRES_URL!);
    url.host = `127.0.0.1:${port}`;
    return url.toString();
  }

  /**
   * An open store whose backend then fails under it: PostgreSQL's connections
   * cut (a TCP proxy), SQLite's disk full (the file may not grow). `restore`
   * gives the backend back.
   */
  async function failing(backend: BackendName): Promise<{ store: Store; restore(): Promise<void> }> {
    const db = await freshDatabase(backend);
    cleanup.push(() => db.drop());
    if (backend === 'sqlite') {
      const setup = db.open();
      await setup.migrate();
      await setup.close();
      const pages = statSync(db.url).size / 4096;
      process.env.MDS_SQLITE_MAX_PAGES = String(pages);
      let store: Store;
      try {
        store = db.open();
      } finally {
        delete process.env.MDS_SQLITE_MAX_PAGES;
      }
      cleanup.push(() => store.close());
      return { store, restore: async () => {} };
    }
    const target = new URL(POSTGRES_URL!);
    const proxy: TcpProxy = await startProxy(target.hostname, Number(target.port || 5432));
    cleanup.push(() => proxy.close());
    const viaProxy = new URL(db.url);
    viaProxy.host = `127.0.0.1:${proxy.port}`;
    const store = openStore(viaProxy.toString());
    cleanup.push(() => store.close());
    await store.migrate();
    await proxy.cut();
    return { store, restore: () => proxy.restore() };
  }

  /** Writes enough to need new pages. */
  const bulk = (store: Store) =>
    store.imports.import({
      kind: 'gold',
      records: Array.from({ length: 5_000 }, (_, k) => ({
        purity: '24K' as const,
        buy: 1 + k,
        sell: 2 + k,
        updatedAt: T0 + k * 1_000,
      })),
    });

  it('a store it cannot reach: StoreUnavailableError from the first operation', async () => {
    const url = await nowhere(name);
    const attempt = async () => {
      const store = openStore(url);
      try {
        await store.ping();
      } finally {
        await store.close();
      }
    };
    const err = await attempt().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreUnavailableError);
    expect((err as StoreUnavailableError).code).toBe(name === 'sqlite' ? 'SQLITE_CANTOPEN' : 'ECONNREFUSED');
  });

  it('a backend that fails under an open store: its operations reject with StoreUnavailableError', async () => {
    const { store, restore } = await failing(name);
    await expect(bulk(store)).rejects.toBeInstanceOf(StoreUnavailableError);
    if (name === 'postgres') {
      // (SQLite's full disk leaves reads working: only PostgreSQL's cut fails them.)
      await expect(store.market.listAssets()).rejects.toBeInstanceOf(StoreUnavailableError);
      // The authenticator reads keys from the store and passes its failure on as it is.
      const { key } = generateKey('live');
      await expect(
        new Authenticator(store).authenticate({ authorization: `Bearer ${key}` }, T0),
      ).rejects.toBeInstanceOf(StoreUnavailableError);
    }
    await restore();
    if (name === 'postgres') expect(await store.market.listAssets()).toEqual([]);
  });
});
