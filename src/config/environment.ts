/**
 * Every MDS_* variable the service and the `mds` CLI read, declared once
 * here: a TypeBox schema each, with what it means (`description`), its
 * `default` (the value the code uses when the variable is unset or empty:
 * read with `defaultOf`, never written again elsewhere), which strings are
 * valid (a pattern, or a list) and what to write instead (`errorMessage`).
 * The table of docs/operations.md is this declaration's
 * (test/config/environment.test.ts renders it and compares).
 *
 * Environment values are strings, so every schema is a string schema; an empty
 * default means unset: nothing of the kind (no Redis, no TLS, no cap). Who
 * turns them into values: src/config.ts (`mds serve`, `mds` itself) and
 * config/setting.ts (one variable, where it is used).
 *
 * A leaf: nothing here imports the rest of src/, so every layer may use it.
 * Test-only variables of the test and benchmark harnesses (MDS_TEST_*,
 * MDS_BENCH_*, MDS_FUZZ_SEED) are not the product's and are not here.
 */
import { type Static, Type } from '@sinclair/typebox';

/** 0 to 65535, as written by people: no sign, no leading zeros beyond one digit. */
const PORT = '^(?:6553[0-5]|655[0-2]\\d|65[0-4]\\d{2}|6[0-4]\\d{3}|[1-5]\\d{4}|[1-9]\\d{0,3}|0)$';

const text = (options: { default: string; description: string; pattern?: string; errorMessage?: string }) =>
  Type.String(options);
const oneOf = (
  values: readonly string[],
  options: { default: string; description: string; errorMessage: string },
) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    options,
  );

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/**
 * MDS_STALE_AFTER (docs/decisions.md 53): how old each family's newest
 * observation may get before /status and the metrics call it stale. The
 * families are the three rate sources and gold.
 */
export const STALE_FAMILIES = ['parallel', 'official', 'transfer', 'gold'] as const;
export type StaleFamily = (typeof STALE_FAMILIES)[number];
/** Quotes are taken daily (parallel, transfer, gold); the Bank of Algeria does not publish on weekends and holidays. */
export const DEFAULT_STALE_AFTER = 'parallel=36h,official=96h,transfer=48h,gold=48h';
const STALE_PAIR = `(?:${STALE_FAMILIES.join('|')})=[1-9]\\d{0,5}[smhd]`;
/** family=duration pairs, each family at most once (the lookahead refuses a repeated one). */
const STALE_AFTER = `^(?!.*\\b(${STALE_FAMILIES.join('|')})=.*\\b\\1=)(?:${STALE_PAIR}(?:\\s*,\\s*${STALE_PAIR})*)?$`;
const FAMILY = `(?:${STALE_FAMILIES.join('|')})`;
/** A comma-separated list of families, each at most once, at least one: the lookahead refuses a repeated one. */
const FAMILY_LIST = `^(?!.*\\b(${STALE_FAMILIES.join('|')})\\b.*\\b\\1\\b)${FAMILY}(?:\\s*,\\s*${FAMILY})*$`;

/** What `mds serve` reads, checked all together before anything starts (src/config.ts readConfig). */
export const ServeEnvironment = Type.Object({
  MDS_HOST: text({
    default: '127.0.0.1',
    description: 'listening address',
    pattern: '^\\S+$',
    errorMessage: 'must be a host name or address',
  }),
  MDS_PORT: text({
    default: '8080',
    description: 'listening port',
    pattern: PORT,
    errorMessage: 'must be 0 to 65535',
  }),
  MDS_REDIS_URL: text({
    default: '',
    description: 'Redis for the limit counters; unset: in-process (SQLite) or the store (PostgreSQL)',
    pattern: '^(?:rediss?://\\S+)?$',
    errorMessage: 'must be a redis:// or rediss:// URL',
  }),
  MDS_REDIS_CLUSTER: oneOf(['0', '1', 'false', 'true'], {
    default: '0',
    description: '1: MDS_REDIS_URL is a seed node of a Redis Cluster',
    errorMessage: 'must be 1 (MDS_REDIS_URL is a Redis Cluster seed node) or 0',
  }),
  MDS_REDIS_PREFIX: text({ default: 'mds:', description: 'key prefix in a shared Redis' }),
  MDS_TLS_CERT: text({ default: '', description: 'PEM certificate: serve HTTPS' }),
  MDS_TLS_KEY: text({ default: '', description: 'PEM private key: serve HTTPS' }),
  MDS_LOG_LEVEL: oneOf(LOG_LEVELS, {
    default: 'info',
    description: 'pino level',
    errorMessage: `must be one of ${LOG_LEVELS.join(', ')}`,
  }),
  MDS_HEADERS_TIMEOUT_MS: text({
    default: '10000',
    description: 'time to receive a request’s headers (ms)',
    pattern: '^[1-9]\\d{0,6}$',
    errorMessage: 'must be 1 to 9999999 (ms)',
  }),
  MDS_REQUEST_TIMEOUT_MS: text({
    default: '15000',
    description: 'time to receive a whole request (ms)',
    pattern: '^[1-9]\\d{0,6}$',
    errorMessage: 'must be 1 to 9999999 (ms)',
  }),
  MDS_ADMIN_PORT: text({
    default: 'off',
    description:
      'admin listener port (GET /metrics, the admin API under /admin/v1; 0: any free port); off: none',
    pattern: `^(?:off|${PORT.slice(1, -1)})$`,
    errorMessage: 'must be 0 to 65535 or off',
  }),
  MDS_ADMIN_HOST: text({ default: '127.0.0.1', description: 'admin listener address' }),
  // The admin listener carries admin tokens: off the loopback only over TLS (docs/decisions.md 58).
  MDS_ADMIN_TLS_CERT: text({
    default: '',
    description: 'PEM certificate: the admin listener serves HTTPS (needed off the loopback)',
  }),
  MDS_ADMIN_TLS_KEY: text({
    default: '',
    description: 'PEM private key: the admin listener serves HTTPS (needed off the loopback)',
  }),
  MDS_ADMIN_ALLOW_PLAINTEXT: oneOf(['0', '1', 'false', 'true'], {
    default: '0',
    description:
      '1: the admin listener may serve plain HTTP on a non-loopback address (TLS ends at a proxy in front)',
    errorMessage: 'must be 1 (allow plain HTTP off the loopback) or 0',
  }),
  // The reporter API (/report/v1, docs/decisions.md 110): beside /admin on the admin listener, and on its own
  // listener when set, under the admin listener's TLS rule, so the field reaches it without reaching /admin.
  MDS_REPORT_PORT: text({
    default: 'off',
    description:
      'reporter listener port: /report only (the reporter API and its page), never /admin (0: any free port); ' +
      'off: none (the admin listener serves /report too)',
    pattern: `^(?:off|${PORT.slice(1, -1)})$`,
    errorMessage: 'must be 0 to 65535 or off',
  }),
  MDS_REPORT_HOST: text({
    default: '127.0.0.1',
    description:
      'reporter listener address; off the loopback it serves HTTPS with MDS_ADMIN_TLS_CERT and MDS_ADMIN_TLS_KEY ' +
      '(or plain HTTP with MDS_ADMIN_ALLOW_PLAINTEXT=1)',
  }),
  MDS_REPORT_RATE_LIMIT: text({
    default: '120',
    description: 'requests each reporter may make to /report/v1 per UTC minute, per process',
    pattern: '^[1-9]\\d{0,5}$',
    errorMessage: 'must be 1 to 999999 (requests a minute)',
  }),
  // The consensus of street quotes (docs/decisions.md 107).
  MDS_CONSENSUS_WINDOW: text({
    default: '6h',
    description:
      'how far back a reporter’s latest quote counts in the consensus (W), with a unit s, m, h or d',
    pattern: '^[1-9]\\d{0,5}[smhd]$',
    errorMessage: 'must be a whole number from 1 to 999999 followed by s, m, h or d, e.g. 6h',
  }),
  MDS_CONSENSUS_QUORUM: text({
    default: '3',
    description: 'organisations the consensus needs to be published; never below 3',
    pattern: '^(?:[3-9]|[1-9]\\d{1,2})$',
    errorMessage: 'must be a whole number from 3 to 999: a consensus needs at least 3 organisations',
  }),
  MDS_DRAIN_MS: text({
    default: '1000',
    description: 'how long a stopping server keeps answering (with Connection: close) before it closes (ms)',
    pattern: '^\\d{1,6}$',
    errorMessage: 'must be 0 to 999999 (ms)',
  }),
  MDS_ADMIN_IMPORTS: text({
    default: '2',
    description:
      'admin API imports run at once by a serving process, each on a thread of its own; more answer 429 ' +
      '(docs/decisions.md 91)',
    pattern: '^[1-9]\\d?$',
    errorMessage: 'must be 1 to 99 (imports at once)',
  }),
  MDS_TRUST_PROXY: text({
    default: '',
    description:
      'proxies whose X-Forwarded-For names the client: true, false, a hop count, or addresses and CIDRs, ' +
      'comma-separated (docs/deployment.md); unset: the header is ignored',
  }),
  // info.contact of the OpenAPI document (docs/decisions.md 25): the operator's to say.
  MDS_CONTACT_NAME: text({
    default: 'Market Data Service (DZD) API support',
    description: 'info.contact.name of the OpenAPI document',
  }),
  MDS_CONTACT_EMAIL: text({
    default: '',
    description: 'info.contact.email of the OpenAPI document',
    pattern: '^(?:[^\\s@]+@[^\\s@]+\\.[^\\s@]+)?$',
    errorMessage: 'must be an email address, e.g. api@example.com',
  }),
  MDS_CONTACT_URL: text({
    default: '',
    description: 'info.contact.url of the OpenAPI document',
    pattern: '^(?:https?://\\S+)?$',
    errorMessage: 'must be an http:// or https:// URL, e.g. https://example.com/support',
  }),
  // Webhooks (docs/webhooks.md, docs/decisions.md 68).
  MDS_WEBHOOK_ALLOW_HTTP: oneOf(['0', '1', 'false', 'true'], {
    default: '0',
    description:
      '1: webhook subscriptions may use plain http:// URLs (for testing; https:// only by default)',
    errorMessage: 'must be 1 (allow http:// webhook URLs) or 0',
  }),
  MDS_WEBHOOK_ALLOW_PRIVATE: oneOf(['0', '1', 'false', 'true'], {
    default: '0',
    description:
      '1: webhooks may be delivered to private, loopback and link-local addresses (refused by default)',
    errorMessage: 'must be 1 (allow private webhook addresses) or 0',
  }),
  MDS_WEBHOOK_RETRY_SCHEDULE: text({
    default: '0,5s,5m,30m,2h,5h,10h,10h',
    description:
      'delays before each webhook delivery attempt, comma-separated with units ms, s, m or h, the first 0; ' +
      'after the last failure the subscription is disabled (docs/webhooks.md)',
  }),
  MDS_WEBHOOK_POLL_MS: text({
    default: '1000',
    description: 'how often each serving process looks for webhook deliveries due (ms)',
    pattern: '^[1-9]\\d{1,5}$',
    errorMessage: 'must be 10 to 999999 (ms)',
  }),
  MDS_STALE_AFTER: text({
    default: DEFAULT_STALE_AFTER,
    description:
      'age after which a family’s newest observation is stale in /status and the metrics, as family=duration ' +
      'pairs; a partial list overrides only the families it names',
    pattern: STALE_AFTER,
    errorMessage:
      `must be comma-separated family=duration pairs (families ${STALE_FAMILIES.join(', ')}, each at most once; ` +
      'durations a whole number from 1 to 999999 followed by s, m, h or d), e.g. parallel=36h,gold=2d; ' +
      'a family this service does not publish is left out of MDS_PUBLISHED_FAMILIES instead',
  }),
  // docs/decisions.md 99: what the operator undertakes to keep fresh.
  MDS_PUBLISHED_FAMILIES: text({
    default: STALE_FAMILIES.join(','),
    description:
      'the families this service publishes, comma-separated; the others are not watched (never stale in ' +
      '/status, no freshness gauges, no data.stale event) and have no panel on /charts',
    pattern: FAMILY_LIST,
    errorMessage:
      `must be comma-separated families among ${STALE_FAMILIES.join(', ')}, each at most once, ` +
      'e.g. parallel,official,gold',
  }),
});

/** What every `mds` command may read (src/config.ts readCommandConfig). */
export const CommandEnvironment = Type.Object({
  MDS_DATABASE_URL: text({
    default: './data/mds.sqlite',
    description: 'the store: postgres://…, sqlite:PATH or a file path',
    // postgres(ql)://…, sqlite:<path>, or a path that names no other scheme.
    pattern: '^(?:postgres(?:ql)?://\\S+|sqlite:\\S.*|(?!sqlite:|[A-Za-z][A-Za-z0-9+.-]*://)\\S.*)?$',
    errorMessage:
      'must be postgres://user@host/database, sqlite:<path> or a file path (e.g. ./data/mds.sqlite)',
  }),
  MDS_PLANS_FILE: text({
    default: 'config/plans.json',
    description:
      'the plan catalogue for `mds grants create --plan` and the admin API; unset: the one of the installation',
  }),
  MDS_WORKBOOK_MAX_MB: text({
    default: '20',
    description:
      'the largest workbook `mds import official-boa` and the admin API read, in MB; larger is refused before it is read (docs/decisions.md 141)',
    pattern: '^[1-9]\\d{0,2}$',
    errorMessage: 'must be 1 to 999 (MB)',
  }),
  MDS_WORKBOOK_UNPACKED_MB: text({
    default: '100',
    description:
      'the most a workbook may unpack to, in MB (a zip bomb is refused before it is unpacked, docs/decisions.md 141)',
    pattern: '^[1-9]\\d{0,3}$',
    errorMessage: 'must be 1 to 9999 (MB)',
  }),
});

/** Read where the store is opened, by whichever process opens it (config/setting.ts). */
export const StoreEnvironment = Type.Object({
  MDS_SQLITE_MAX_PAGES: text({
    default: '',
    description: 'caps the SQLite file at this many pages, simulating a full disk (tests); unset: no cap',
    pattern: '^(?:[1-9]\\d{0,9})?$',
    errorMessage: 'must be a positive integer (a number of pages, e.g. 1000), or unset for no cap',
  }),
});

/** Every MDS_* variable. */
export const Environment = Type.Object({
  ...ServeEnvironment.properties,
  ...CommandEnvironment.properties,
  ...StoreEnvironment.properties,
});

export type ServeEnvironment = Static<typeof ServeEnvironment>;
export type CommandEnvironment = Static<typeof CommandEnvironment>;
export type StoreEnvironment = Static<typeof StoreEnvironment>;
export type Environment = Static<typeof Environment>;
export type Variable = keyof Environment;

/** The value `name` takes when unset or empty: its declared default. */
export const defaultOf = (name: Variable): string => Environment.properties[name].default as string;
