import { ConfigError, readConfig, type ServeConfig } from '../../config.js';
import { ENTITLEMENTS } from '../../domain/scopes.js';
import { seedSample } from '../../import/seed.js';
import { tuneHeap } from '../../runtime/heap.js';
import { TopologyError } from '../../runtime/single-process.js';
import { generateSample, lastCompleteDay, SAMPLE_NOTICE } from '../../sample/generate.js';
import { SYSTEM_ACTOR } from '../../storage/admin-records.js';
import { openStore } from '../../storage/open.js';
import type { Store } from '../../storage/store.js';
import { createAccount } from '../../use-cases/accounts.js';
import type { Result } from '../../use-cases/contract.js';
import { createGrant } from '../../use-cases/grants.js';
import { createKey } from '../../use-cases/keys.js';
import type { Command } from '../command.js';
import { CliError } from '../output.js';

/** The first run's own provisioning cannot be refused: a refusal here is a bug. */
function provisioned<T>(result: Result<T>): T {
  if (!result.ok) throw new Error(`first-run provisioning refused: ${result.error.message}`);
  return result.value;
}

interface FirstRun {
  seeded: boolean;
  key?: string;
}

/**
 * First run on the embedded default: an empty store gets the
 * sample data set, and a store without accounts gets a demo account whose key
 * is printed once. Never on PostgreSQL: a shared store is provisioned on purpose.
 */
async function firstRun(store: Store): Promise<FirstRun> {
  await store.migrate();
  const result: FirstRun = { seeded: false };
  if ((await store.market.listAssets()).length === 0) {
    // The last day whose observations are all in the past: never a time in the future.
    await seedSample(store, generateSample({ endDate: lastCompleteDay() }));
    result.seeded = true;
  }
  if ((await store.access.countAccounts()) === 0) {
    // Provisioned by the service itself: the audit log names `system` (docs/decisions.md, 57).
    const account = provisioned(await createAccount(store, SYSTEM_ACTOR, { name: 'Demo account' }));
    const grant = provisioned(
      await createGrant(store, SYSTEM_ACTOR, {
        accountId: account.id,
        plan: 'demo',
        scopes: [...ENTITLEMENTS],
        monthlyRequestLimit: 1_000_000,
        requestsPerMinute: 600,
      }),
    );
    const created = await createKey(store, SYSTEM_ACTOR, { grantId: grant.id, label: 'first-run demo key' });
    result.key = provisioned(created).key;
  }
  return result;
}

/**
 * What --first-run says on PostgreSQL, where it provisions nothing: what is
 * true of the store, and the commands that provision it (docs/operations.md,
 * "The asset directory and mds init").
 */
const SHARED_STORE_FIRST_RUN = [
  'First-run provisioning (sample data, demo key) is only for the embedded SQLite store; this PostgreSQL store was left as it is.',
  'To provision it: `mds init` (migrations and the asset directory), `mds import rates <file>` (and `mds import gold <file>`),',
  'then `mds accounts create`, `mds grants create --account <id> --plan <plan>` and `mds keys create --grant <id>`.',
];

/** MDS_TRUST_PROXY (docs/deployment.md, "Behind a reverse proxy"); loaded here like the HTTP stack. */
async function trustProxy(text: string) {
  const { MAX_HOPS, parseTrustProxy } = await import('../../http/client-address.js');
  try {
    return parseTrustProxy(text);
  } catch (err) {
    throw new CliError(
      `MDS_TRUST_PROXY: ${(err as Error).message}; expected true, false, a hop count (0 to ${MAX_HOPS}) or a comma-separated list of addresses and CIDRs`,
      2,
    );
  }
}

export const serveCommand: Command = {
  name: ['serve'],
  createsStore: true,
  usage: 'serve [--host 127.0.0.1] [--port 8080] [--first-run]',
  options: { host: { type: 'string' }, port: { type: 'string' }, 'first-run': { type: 'boolean' } },
  async run({ values, out, databaseUrl }) {
    let config: ServeConfig;
    try {
      const flag = (name: 'host' | 'port') =>
        values[name] === undefined ? undefined : { flag: `--${name}`, value: values[name] as string };
      config = readConfig(process.env, { MDS_HOST: flag('host'), MDS_PORT: flag('port') });
    } catch (err) {
      throw err instanceof ConfigError ? new CliError(err.message, 2) : err;
    }
    const trust = await trustProxy(config.trustProxy);

    let setup: FirstRun = { seeded: false };
    // --first-run on PostgreSQL provisions nothing: the banner says what to run instead.
    let sharedStore = false;
    if (values['first-run']) {
      const store = openStore(databaseUrl);
      try {
        if (store.dialect === 'sqlite') setup = await firstRun(store);
        else sharedStore = true;
      } finally {
        await store.close();
      }
    }

    // Loaded here: the HTTP stack would otherwise slow every other command's start.
    tuneHeap();
    const { createLogger, startServer, stopOnSignals } = await import('../../server.js');
    const logger = createLogger(config.logLevel);
    const { trustProxy: _text, logLevel: _level, ...serverOptions } = config;
    const server = await startServer({ ...serverOptions, databaseUrl, trustProxy: trust }, logger).catch(
      (err: unknown) => {
        throw err instanceof TopologyError ? new CliError(err.message, 2) : err;
      },
    );
    stopOnSignals(server, logger);

    const example = setup.key
      ? `curl -s -H "Authorization: Bearer ${setup.key}" "${server.url}/v1/rates/latest?currency=EUR,USD"`
      : `curl -s -H "Authorization: Bearer <your key>" "${server.url}/v1/rates/latest?currency=EUR,USD"`;
    out.result(
      {
        url: server.url,
        adminUrl: server.adminUrl,
        reportUrl: server.reportUrl,
        seeded: setup.seeded,
        ...(setup.key ? { key: setup.key } : {}),
        ...(sharedStore ? { firstRun: SHARED_STORE_FIRST_RUN.join(' ') } : {}),
        example,
      },
      [
        `Market Data Service listening on ${server.url}`,
        ...(setup.seeded ? [`Loaded the sample data set (${SAMPLE_NOTICE}).`] : []),
        ...(setup.key
          ? ['', 'Demo API key (shown once, store it now):', `  ${setup.key}`, '']
          : sharedStore
            ? ['', ...SHARED_STORE_FIRST_RUN, '']
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
        ...(server.reportUrl ? [`Reporter API: ${server.reportUrl}/report/v1`] : []),
        ...(server.reportUrl ? [`Reporters' page: ${server.reportUrl}/report/`] : []),
      ],
    );
  },
};
