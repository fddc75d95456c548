/**
 * The server's configuration: one TypeBox schema for the MDS_* variables that
 * `mds serve` reads, the type derived from it, and one clear message per bad
 * value, all reported together (issue #15: they were read and checked by hand
 * in several places, some not at all: MDS_DRAIN_MS=abc drained for 1 ms,
 * MDS_LOG_LEVEL=loud was an "unexpected error" from pino).
 *
 * Environment values are strings; each schema says which strings are valid (a
 * pattern, or a list), its `errorMessage` what to write instead, and its
 * default. `readConfig` then turns them into the values the server takes.
 */
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';

/** 0 to 65535, as written by people: no sign, no leading zeros beyond one digit. */
const PORT = '^(?:6553[0-5]|655[0-2]\\d|65[0-4]\\d{2}|6[0-4]\\d{3}|[1-5]\\d{4}|[1-9]\\d{0,3}|0)$';

const text = (options: { default?: string; description: string; pattern?: string; errorMessage?: string }) =>
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
    description: 'Redis for the limit counters; empty: in-process (SQLite) or the store (PostgreSQL)',
    pattern: '^(?:rediss?://\\S+)?$',
    errorMessage: 'must be a redis:// or rediss:// URL',
  }),
  MDS_REDIS_CLUSTER: oneOf(['', '0', '1', 'false', 'true'], {
    default: '',
    description: '1: MDS_REDIS_URL is a seed node of a Redis Cluster',
    errorMessage: 'must be 1 (MDS_REDIS_URL is a Redis Cluster seed node) or 0',
  }),
  MDS_REDIS_PREFIX: text({ default: '', description: 'key prefix in a shared Redis (default mds:)' }),
  MDS_TLS_CERT: text({ default: '', description: 'PEM certificate: serve HTTPS' }),
  MDS_TLS_KEY: text({ default: '', description: 'PEM private key: serve HTTPS' }),
  MDS_LOG_LEVEL: oneOf(['', ...LOG_LEVELS], {
    default: '',
    description: 'pino level (default info)',
    errorMessage: `must be one of ${LOG_LEVELS.join(', ')}`,
  }),
  MDS_HEADERS_TIMEOUT_MS: text({
    default: '',
    description: 'time to receive a request’s headers (default 10000)',
    pattern: '^(?:[1-9]\\d{0,6})?$',
    errorMessage: 'must be 1 to 9999999 (ms)',
  }),
  MDS_REQUEST_TIMEOUT_MS: text({
    default: '',
    description: 'time to receive a whole request (default 15000)',
    pattern: '^(?:[1-9]\\d{0,6})?$',
    errorMessage: 'must be 1 to 9999999 (ms)',
  }),
  MDS_ADMIN_PORT: text({
    default: '',
    description: 'metrics listener port; empty or off: none',
    pattern: `^(?:off|${PORT.slice(1, -1)})?$`,
    errorMessage: 'must be 0 to 65535 or off',
  }),
  MDS_ADMIN_HOST: text({ default: '', description: 'metrics listener address (default 127.0.0.1)' }),
  MDS_DRAIN_MS: text({
    default: '',
    description: 'how long a stopping server keeps answering before it closes (default 1000)',
    pattern: '^(?:\\d{1,6})?$',
    errorMessage: 'must be 0 to 999999 (ms)',
  }),
  MDS_TRUST_PROXY: text({ default: '', description: 'proxies whose X-Forwarded-For names the client' }),
});

export type ServeEnvironment = Static<typeof ServeEnvironment>;

/** What the server takes: the environment turned into values. */
export interface ServeConfig {
  host: string;
  port: number;
  redisUrl?: string;
  redisCluster: boolean;
  redisPrefix?: string;
  tlsCert?: string;
  tlsKey?: string;
  logLevel: string;
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
  adminPort?: number;
  adminHost?: string;
  drainMs?: number;
  /** Checked by the caller (its parser lives with the HTTP stack, loaded only to serve). */
  trustProxy: string;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
    this.name = 'ConfigError';
  }
}

const fields = Object.entries(ServeEnvironment.properties) as [keyof ServeEnvironment, TSchema][];
const checks = fields.map(([name, schema]) => ({ name, schema, check: TypeCompiler.Compile(schema) }));

/**
 * The configuration from `env`, with `overrides` (command-line flags, named as
 * the user wrote them) taking precedence. Throws ConfigError listing every bad
 * value, one line each: `NAME: what it must be`.
 */
export function readConfig(
  env: NodeJS.ProcessEnv,
  overrides: Partial<Record<keyof ServeEnvironment, { flag: string; value: string }>> = {},
): ServeConfig {
  const problems: string[] = [];
  const v = {} as Record<keyof ServeEnvironment, string>;
  for (const { name, schema, check } of checks) {
    const override = overrides[name];
    const given = override?.value ?? env[name];
    const value = given === undefined || given === '' ? (schema.default as string) : given.trim();
    if (!check.Check(value)) problems.push(`${override?.flag ?? name}: ${schema.errorMessage as string}`);
    v[name] = value;
  }
  const number = (s: string) => (s === '' ? undefined : Number(s));
  const config: ServeConfig = {
    host: v.MDS_HOST,
    port: Number(v.MDS_PORT),
    redisUrl: v.MDS_REDIS_URL || undefined,
    redisCluster: v.MDS_REDIS_CLUSTER === '1' || v.MDS_REDIS_CLUSTER === 'true',
    redisPrefix: v.MDS_REDIS_PREFIX || undefined,
    tlsCert: v.MDS_TLS_CERT || undefined,
    tlsKey: v.MDS_TLS_KEY || undefined,
    logLevel: v.MDS_LOG_LEVEL || 'info',
    headersTimeoutMs: number(v.MDS_HEADERS_TIMEOUT_MS),
    requestTimeoutMs: number(v.MDS_REQUEST_TIMEOUT_MS),
    adminPort: v.MDS_ADMIN_PORT === 'off' ? undefined : number(v.MDS_ADMIN_PORT),
    adminHost: v.MDS_ADMIN_HOST || undefined,
    drainMs: number(v.MDS_DRAIN_MS),
    trustProxy: v.MDS_TRUST_PROXY,
  };
  // Rules across variables, once each variable passed its own.
  if (problems.length === 0) {
    if (config.redisCluster && !config.redisUrl)
      problems.push('MDS_REDIS_CLUSTER=1 needs MDS_REDIS_URL: the address of one node of the cluster');
    if ((config.headersTimeoutMs ?? 10_000) > (config.requestTimeoutMs ?? 15_000))
      problems.push(
        'MDS_HEADERS_TIMEOUT_MS: must not exceed the request timeout (MDS_REQUEST_TIMEOUT_MS, 15000 by default)',
      );
    if (Boolean(config.tlsCert) !== Boolean(config.tlsKey))
      problems.push('MDS_TLS_CERT and MDS_TLS_KEY: set both (HTTPS) or neither (HTTP)');
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}
