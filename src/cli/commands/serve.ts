import { createAccount, createGrant, createKey } from '../../access/admin.js';
import { ENTITLEMENTS } from '../../domain/scopes.js';
import { tuneHeap } from '../../runtime/heap.js';
import { TopologyError } from '../../runtime/single-process.js';
import { generateSample, SAMPLE_NOTICE } from '../../sample/generate.js';
import { openStore } from '../../storage/open.js';
import type { Store } from '../../storage/store.js';
import type { Command } from '../main.js';
import { CliError } from '../output.js';
import { seedSample } from './data.js';

interface FirstRun {
  seeded: boolean;
  key?: string;
}

/**
 * First run on the embedded default (issues #2, #3): an empty store gets the
 * sample data set, and a store without accounts gets a demo account whose key
 * is printed once. Never on PostgreSQL: a shared store is provisioned on purpose.
 */
async function firstRun(store: Store): Promise<FirstRun> {
  await store.migrate();
  const result: FirstRun = { seeded: false };
  if ((await store.listAssets()).length === 0) {
    // End yesterday: today's observations would otherwise carry times still in the future.
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    await seedSample(store, generateSample({ endDate: yesterday }));
    result.seeded = true;
  }
  if ((await store.countAccounts()) === 0) {
    const account = await createAccount(store, { name: 'Demo account' });
    const grant = await createGrant(store, {
      accountId: account.id,
      plan: 'demo',
      scopes: [...ENTITLEMENTS],
      monthlyRequestLimit: 1_000_000,
      requestsPerMinute: 600,
    });
    result.key = (await createKey(store, { grantId: grant.id, label: 'first-run demo key' })).key;
  }
  return result;
}

/** MDS_ADMIN_PORT enables the metrics listener (0 picks a free port). */
function adminPort(): number | undefined {
  const text = process.env.MDS_ADMIN_PORT;
  if (text === undefined || text === '' || text === 'off') return undefined;
  if (!/^\d{1,5}$/.test(text) || Number(text) > 65535)
    throw new CliError('MDS_ADMIN_PORT: must be 0 to 65535 or off', 2);
  return Number(text);
}

/** MDS_HEADERS_TIMEOUT_MS / MDS_REQUEST_TIMEOUT_MS: milliseconds, or unset for the defaults. */
function timeoutMs(name: string): number | undefined {
  const text = process.env[name];
  if (text === undefined || text === '') return undefined;
  if (!/^\d{1,7}$/.test(text) || Number(text) < 1)
    throw new CliError(`${name}: must be 1 to 9999999 (ms)`, 2);
  return Number(text);
}

/** MDS_TRUST_PROXY (docs/deployment.md, "Behind a reverse proxy"); loaded here like the HTTP stack. */
async function trustProxy() {
  const { MAX_HOPS, parseTrustProxy } = await import('../../http/client-address.js');
  try {
    return parseTrustProxy(process.env.MDS_TRUST_PROXY);
  } catch (err) {
    throw new CliError(
      `MDS_TRUST_PROXY: ${(err as Error).message}; expected true, false, a hop count (0 to ${MAX_HOPS}) or a comma-separated list of addresses and CIDRs`,
      2,
    );
  }
}

export const serveCommand: Command = {
  name: ['serve'],
  usage: 'serve [--host 127.0.0.1] [--port 8080] [--first-run]',
  options: { host: { type: 'string' }, port: { type: 'string' }, 'first-run': { type: 'boolean' } },
  async run({ values, out, databaseUrl }) {
    const host = (values.host as string | undefined) ?? process.env.MDS_HOST ?? '127.0.0.1';
    const portText = (values.port as string | undefined) ?? process.env.MDS_PORT ?? '8080';
    if (!/^\d{1,5}$/.test(portText) || Number(portText) > 65535)
      throw new CliError('--port: must be 0 to 65535', 2);
    const redisUrl = process.env.MDS_REDIS_URL || undefined;
    const clusterText = process.env.MDS_REDIS_CLUSTER ?? '';
    if (!['', '0', '1', 'true', 'false'].includes(clusterText))
      throw new CliError('MDS_REDIS_CLUSTER: must be 1 (MDS_REDIS_URL is a Redis Cluster seed node) or 0', 2);
    const redisCluster = clusterText === '1' || clusterText === 'true';
    if (redisCluster && !redisUrl)
      throw new CliError(
        'MDS_REDIS_CLUSTER=1 needs MDS_REDIS_URL: the address of one node of the cluster',
        2,
      );
    const headersTimeoutMs = timeoutMs('MDS_HEADERS_TIMEOUT_MS');
    const requestTimeoutMs = timeoutMs('MDS_REQUEST_TIMEOUT_MS');
    if ((headersTimeoutMs ?? 10_000) > (requestTimeoutMs ?? 15_000))
      throw new CliError(
        'MDS_HEADERS_TIMEOUT_MS: must not exceed the request timeout (MDS_REQUEST_TIMEOUT_MS, 15000 by default)',
        2,
      );
    const trust = await trustProxy();

    let setup: FirstRun = { seeded: false };
    if (values['first-run']) {
      const store = openStore(databaseUrl);
      try {
        if (store.dialect === 'sqlite') setup = await firstRun(store);
      } finally {
        await store.close();
      }
    }

    // Loaded here: the HTTP stack would otherwise slow every other command's start.
    tuneHeap();
    const { createLogger, startServer, stopOnSignals } = await import('../../server.js');
    const logger = createLogger();
    const server = await startServer(
      {
        host,
        port: Number(portText),
        databaseUrl,
        redisUrl,
        redisCluster,
        redisPrefix: process.env.MDS_REDIS_PREFIX || undefined,
        adminPort: adminPort(),
        drainMs: process.env.MDS_DRAIN_MS ? Number(process.env.MDS_DRAIN_MS) : undefined,
        adminHost: process.env.MDS_ADMIN_HOST || undefined,
        tlsCert: process.env.MDS_TLS_CERT,
        tlsKey: process.env.MDS_TLS_KEY,
        headersTimeoutMs,
        requestTimeoutMs,
        trustProxy: trust,
      },
      logger,
    ).catch((err: unknown) => {
      throw err instanceof TopologyError ? new CliError(err.message, 2) : err;
    });
    stopOnSignals(server, logger);

    const example = setup.key
      ? `curl -s -H "Authorization: Bearer ${setup.key}" "${server.url}/v1/rates/latest?currency=EUR,USD"`
      : `curl -s -H "Authorization: Bearer <your key>" "${server.url}/v1/rates/latest?currency=EUR,USD"`;
    out.result(
      {
        url: server.url,
        adminUrl: server.adminUrl,
        seeded: setup.seeded,
        ...(setup.key ? { key: setup.key } : {}),
        example,
      },
      [
        `Market Data Service listening on ${server.url}`,
        ...(setup.seeded ? [`Loaded the sample data set (${SAMPLE_NOTICE}).`] : []),
        ...(setup.key
          ? ['', 'Demo API key (shown once, store it now):', `  ${setup.key}`, '']
          : values['first-run']
            ? [
                '',
                'The store already has accounts: create a key with `npm run mds -- keys create --grant <id>`.',
                '',
              ]
            : []),
        'Try:',
        `  ${example}`,
        `Interactive API reference: ${server.url}/docs/`,
        `Charts (paste your key): ${server.url}/charts`,
        `OpenAPI document: ${server.url}/openapi.json`,
        ...(server.adminUrl ? [`Metrics: ${server.adminUrl}/metrics`] : []),
      ],
    );
  },
};
