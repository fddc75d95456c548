/**
 * The contract of the store as a whole, on every backend: its migrations, and
 * its failures (every repository's methods fail alike when the backend cannot
 * serve). Each repository has its own suite beside this one
 * (test/storage/*.contract.test.ts).
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
import type { Store } from '../../src/storage/store.js';
import {
  type BackendName,
  backends,
  type Database,
  freshDatabase,
  POSTGRES_URL,
} from '../support/backends.js';
import { startProxy, type TcpProxy } from '../support/proxy.js';

const T0 = Date.UTC(2026, 10, 1, 9);
const _DAY = 86_400_000;
const _asset = (code: string) => ({
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
      '0012_webhook_queues',
      '0013_sealed_idempotent_answers',
      '0014_retractions',
      '0015_reporters',
      '0016_quote_effective_instant',
    ]);
    expect(await store.migrate()).toEqual([]);
    expect(await store.setting('cursor_secret')).toMatch(/^[\w-]{40,}$/);
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
