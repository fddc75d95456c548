/**
 * Webhook delivery beside receivers that hang (docs/decisions.md 95): `mds
 * serve` on SQLite, the default poll (MDS_WEBHOOK_POLL_MS) and attempt
 * timeout, one healthy receiver subscribed to `key.created` beside 0, then 35,
 * receivers that never answer (servers in this process on 127.0.0.1 holding
 * every request). A key is created every 250 ms from this process, as `mds
 * keys create` does beside a server; the figure is, per key, the time from
 * its creation's commit to its event's arrival at the healthy receiver. The
 * 10 s of keys cover the hanging receivers' first timeouts and retries.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { ENTITLEMENTS } from '../src/domain/scopes.js';
import { SYSTEM_ACTOR } from '../src/storage/admin-records.js';
import { openStore } from '../src/storage/open.js';
import { createAccount } from '../src/use-cases/accounts.js';
import { createAdminToken } from '../src/use-cases/admin-tokens.js';
import type { Result } from '../src/use-cases/contract.js';
import { createGrant } from '../src/use-cases/grants.js';
import { createKey } from '../src/use-cases/keys.js';
import { median } from './load.js';
import { defer, freePort, sleep, stop } from './proc.js';
import { startService } from './service.js';

const KEYS = 40;
const EVERY_MS = 250;
const HANGING = 35;
/** Past this, a key's event counts as lost. */
const PATIENCE_MS = 60_000;

export interface DelayFigures {
  hanging: number;
  events: number;
  medianMs: number;
  p95Ms: number;
  maxMs: number;
  /** Events that had not arrived after PATIENCE_MS. */
  lost: number;
}

export type WebhooksReport = { pollMs: number; runs: DelayFigures[] };

function value<T>(r: Result<T>): T {
  if (!r.ok) throw new Error(`bench: provisioning refused: ${r.error.message}`);
  return r.value;
}

/** A receiver on 127.0.0.1: `arrived` (key id → instant) when healthy; a hanging one holds every request. */
async function receiver(hang: boolean) {
  const arrived = new Map<string, number>();
  const held: ServerResponse[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (hang) {
        held.push(res);
        return;
      }
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { keyId?: string } };
      if (event.data.keyId && !arrived.has(event.data.keyId))
        arrived.set(event.data.keyId, performance.now());
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const close = () => {
    for (const res of held.splice(0)) res.destroy();
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, arrived, close };
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? Number.NaN;

async function delays(dir: string, hanging: number, cpus: string | undefined): Promise<DelayFigures> {
  const url = join(dir, `webhooks-${hanging}.sqlite`);
  const store = openStore(url);
  await store.migrate();
  const account = value(await createAccount(store, SYSTEM_ACTOR, { name: 'Webhooks bench' }));
  const grant = value(
    await createGrant(store, SYSTEM_ACTOR, {
      accountId: account.id,
      plan: 'benchmark',
      scopes: [...ENTITLEMENTS],
      monthlyRequestLimit: 1_000_000,
      requestsPerMinute: 1_000_000,
      validFrom: new Date(Date.now() - 86_400_000).toISOString(),
    }),
  );
  const key = value(await createKey(store, SYSTEM_ACTOR, { grantId: grant.id, label: 'bench' }));
  const token = value(
    await createAdminToken(store, SYSTEM_ACTOR, { label: 'bench', scopes: ['webhooks:write'] }),
  ).token;
  const adminPort = await freePort();
  const service = await startService(url, key.key, cpus, {
    MDS_ADMIN_PORT: String(adminPort),
    MDS_WEBHOOK_ALLOW_HTTP: '1',
    MDS_WEBHOOK_ALLOW_PRIVATE: '1',
  });
  const receivers = await Promise.all(Array.from({ length: hanging + 1 }, (_, i) => receiver(i < hanging)));
  const closeAll = async () => {
    await Promise.all(receivers.map((r) => r.close()));
  };
  defer(closeAll);
  try {
    for (const r of receivers) {
      const res = await fetch(`http://127.0.0.1:${adminPort}/admin/v1/webhooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: r.url, eventTypes: ['key.created'] }),
      });
      if (res.status !== 201) throw new Error(`bench: subscription refused: ${await res.text()}`);
    }
    const healthy = receivers.at(-1)!;
    const created = new Map<string, number>();
    for (let i = 0; i < KEYS; i++) {
      const made = value(await createKey(store, SYSTEM_ACTOR, { grantId: grant.id, label: `k${i}` }));
      created.set(made.publicId, performance.now());
      await sleep(EVERY_MS);
    }
    const deadline = performance.now() + PATIENCE_MS;
    while (healthy.arrived.size < KEYS && performance.now() < deadline) await sleep(50);
    const ms = [...created]
      .filter(([id]) => healthy.arrived.has(id))
      .map(([id, at]) => healthy.arrived.get(id)! - at)
      .sort((a, b) => a - b);
    const tenth = (x: number) => Math.round(x * 10) / 10;
    return {
      hanging,
      events: KEYS,
      medianMs: tenth(median(ms)),
      p95Ms: tenth(percentile(ms, 0.95)),
      maxMs: tenth(ms.at(-1) ?? Number.NaN),
      lost: KEYS - ms.length,
    };
  } finally {
    await stop(service.proc);
    await closeAll();
    await store.close();
  }
}

export async function measureWebhooks(o: {
  dir: string;
  cpus?: string;
  pollMs: number;
  log: (line: string) => void;
}): Promise<WebhooksReport> {
  const runs: DelayFigures[] = [];
  for (const hanging of [0, HANGING]) {
    o.log(`bench: webhooks, a healthy receiver beside ${hanging} hanging (${KEYS} keys)`);
    runs.push(await delays(o.dir, hanging, o.cpus));
  }
  return { pollMs: o.pollMs, runs };
}
