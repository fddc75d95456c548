/**
 * The configuration: every MDS_* variable is declared once, as a TypeBox
 * schema (config/environment.ts), and checked with one clear message per bad
 * value (they were read and checked by hand in several places, some
 * not at all: MDS_DRAIN_MS=abc drained for 1 ms, MDS_LOG_LEVEL=loud was an
 * "unexpected error" from pino).
 *
 * Here a command's variables are read all together, every problem reported at
 * once, and turned into the values the code takes: `readCommandConfig` for
 * every `mds` command, `readConfig` for `mds serve`. A variable read where it
 * is used (MDS_SQLITE_MAX_PAGES, when a store opens) goes through
 * config/setting.ts `setting`, against the same schema.
 */
import {
  DEFAULT_STALE_AFTER,
  defaultOf,
  ServeEnvironment,
  STALE_FAMILIES,
  type StaleFamily,
  type Variable,
} from './config/environment.js';
import { ConfigError, checked } from './config/setting.js';
import type { ConsensusSettings } from './domain/consensus.js';
import { parseSchedule } from './webhooks/schedule.js';
import { DEFAULT_WEBHOOK_SETTINGS, type WebhookSettings } from './webhooks/settings.js';

export {
  CommandEnvironment,
  defaultOf,
  Environment,
  ServeEnvironment,
  STALE_FAMILIES,
  type StaleFamily,
  StoreEnvironment,
} from './config/environment.js';
export { ConfigError, setting } from './config/setting.js';

/** Command-line flags, named as the user wrote them, that take precedence over variables. */
export type Overrides<N extends Variable> = Partial<Record<N, { flag: string; value: string }>>;

/** `names` from `env`, with `overrides`: the checked values, or ConfigError listing every problem. */
function read<N extends Variable>(
  names: readonly N[],
  env: NodeJS.ProcessEnv,
  overrides: Overrides<NoInfer<N>>,
): Record<N, string> {
  const problems: string[] = [];
  const values = {} as Record<N, string>;
  for (const name of names) {
    const override = overrides[name];
    const { value, problem } = checked(name, override?.value ?? env[name], override?.flag);
    if (problem) problems.push(problem);
    values[name] = value;
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return values;
}

/** What every `mds` command is given. */
export interface CommandConfig {
  /** The store's URL; undefined: the embedded default (storage/open.ts). */
  databaseUrl?: string;
  /** The plan catalogue; undefined: config/plans.json (access/plans.ts). */
  plansFile?: string;
}

export function readCommandConfig(
  env: NodeJS.ProcessEnv,
  overrides: Overrides<'MDS_DATABASE_URL'> = {},
): CommandConfig {
  const v = read(['MDS_DATABASE_URL', 'MDS_PLANS_FILE'], env, overrides);
  // Unset, each is its default, which storage/open.ts and access/plans.ts resolve themselves (the
  // catalogue's against the installation, not the working directory).
  const given = (name: Variable) => (overrides[name as 'MDS_DATABASE_URL']?.value ?? env[name] ?? '') !== '';
  return {
    databaseUrl: given('MDS_DATABASE_URL') ? v.MDS_DATABASE_URL : undefined,
    plansFile: given('MDS_PLANS_FILE') ? v.MDS_PLANS_FILE : undefined,
  };
}

/** info.contact of the OpenAPI document: whom its readers write to. */
export interface Contact {
  name: string;
  email?: string;
  url?: string;
}

export const DEFAULT_CONTACT_NAME = defaultOf('MDS_CONTACT_NAME');

/** Seconds after which each family's newest observation is stale (MDS_STALE_AFTER, docs/decisions.md 53). */
export type StaleAfter = Record<StaleFamily, number>;

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3_600, d: 86_400 };

/**
 * MDS_STALE_AFTER's value (already checked against its schema) over the
 * defaults: a partial list overrides only the families it names; '' gives the
 * defaults.
 */
export function staleAfterSeconds(text = ''): StaleAfter {
  const seconds = {} as StaleAfter;
  for (const list of [DEFAULT_STALE_AFTER, text]) {
    for (const pair of list.split(',')) {
      const [family, duration] = pair.trim().split('=') as [StaleFamily, string | undefined];
      if (!duration) continue;
      seconds[family] = Number(duration.slice(0, -1)) * UNIT_SECONDS[duration.slice(-1)]!;
    }
  }
  return seconds;
}

/** MDS_PUBLISHED_FAMILIES's value (already checked): in the order of STALE_FAMILIES; '' gives them all. */
export function publishedFamilies(text = ''): StaleFamily[] {
  const named = new Set(text.split(',').map((f) => f.trim()));
  return STALE_FAMILIES.filter((f) => text === '' || named.has(f));
}

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
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  adminPort?: number;
  adminHost: string;
  /** PEM files of the admin listener's HTTPS (MDS_ADMIN_TLS_CERT, MDS_ADMIN_TLS_KEY). */
  adminTlsCert?: string;
  adminTlsKey?: string;
  /** MDS_ADMIN_ALLOW_PLAINTEXT=1: plain HTTP off the loopback is the operator's choice. */
  adminAllowPlaintext?: boolean;
  /** The reporter listener (MDS_REPORT_PORT): /report only, with the admin listener's TLS; off when undefined. */
  reportPort?: number;
  reportHost: string;
  /** MDS_REPORT_RATE_LIMIT: requests per reporter per UTC minute. */
  reportRateLimit: number;
  /** MDS_CONSENSUS_WINDOW and MDS_CONSENSUS_QUORUM (docs/decisions.md 107). */
  consensus: { windowMs: number; quorum: number };
  drainMs: number;
  /** Checked by the caller (its parser lives with the HTTP stack, loaded only to serve). */
  trustProxy: string;
  contact: Contact;
  staleAfter: StaleAfter;
  /** MDS_PUBLISHED_FAMILIES: the families watched for freshness and shown on /charts (docs/decisions.md 99). */
  publishedFamilies: StaleFamily[];
  webhooks: WebhookSettings;
}

const SERVE_VARIABLES = Object.keys(ServeEnvironment.properties) as (keyof ServeEnvironment)[];

/**
 * The configuration of `mds serve` from `env`, with `overrides` (command-line
 * flags) taking precedence. Throws ConfigError listing every bad value, one
 * line each: `NAME: what it must be`.
 */
export function readConfig(
  env: NodeJS.ProcessEnv,
  overrides: Overrides<keyof ServeEnvironment> = {},
): ServeConfig {
  const v = read(SERVE_VARIABLES, env, overrides);
  // Every value is given: an unset variable is its declared default (config/environment.ts).
  const flag = (value: string) => value === '1' || value === 'true';
  const config: ServeConfig = {
    host: v.MDS_HOST,
    port: Number(v.MDS_PORT),
    redisUrl: v.MDS_REDIS_URL || undefined,
    redisCluster: flag(v.MDS_REDIS_CLUSTER),
    redisPrefix: v.MDS_REDIS_PREFIX,
    tlsCert: v.MDS_TLS_CERT || undefined,
    tlsKey: v.MDS_TLS_KEY || undefined,
    logLevel: v.MDS_LOG_LEVEL,
    headersTimeoutMs: Number(v.MDS_HEADERS_TIMEOUT_MS),
    requestTimeoutMs: Number(v.MDS_REQUEST_TIMEOUT_MS),
    adminPort: v.MDS_ADMIN_PORT === 'off' ? undefined : Number(v.MDS_ADMIN_PORT),
    adminHost: v.MDS_ADMIN_HOST,
    adminTlsCert: v.MDS_ADMIN_TLS_CERT || undefined,
    adminTlsKey: v.MDS_ADMIN_TLS_KEY || undefined,
    adminAllowPlaintext: flag(v.MDS_ADMIN_ALLOW_PLAINTEXT) ? true : undefined,
    reportPort: v.MDS_REPORT_PORT === 'off' ? undefined : Number(v.MDS_REPORT_PORT),
    reportHost: v.MDS_REPORT_HOST,
    reportRateLimit: Number(v.MDS_REPORT_RATE_LIMIT),
    consensus: consensusSettings(v.MDS_CONSENSUS_WINDOW, v.MDS_CONSENSUS_QUORUM),
    drainMs: Number(v.MDS_DRAIN_MS),
    trustProxy: v.MDS_TRUST_PROXY,
    contact: {
      name: v.MDS_CONTACT_NAME,
      ...(v.MDS_CONTACT_EMAIL ? { email: v.MDS_CONTACT_EMAIL } : {}),
      ...(v.MDS_CONTACT_URL ? { url: v.MDS_CONTACT_URL } : {}),
    },
    staleAfter: staleAfterSeconds(v.MDS_STALE_AFTER),
    publishedFamilies: publishedFamilies(v.MDS_PUBLISHED_FAMILIES),
    webhooks: {
      ...DEFAULT_WEBHOOK_SETTINGS,
      policy: { allowHttp: flag(v.MDS_WEBHOOK_ALLOW_HTTP), allowPrivate: flag(v.MDS_WEBHOOK_ALLOW_PRIVATE) },
      pollMs: Number(v.MDS_WEBHOOK_POLL_MS),
    },
  };
  // Rules across variables, once each variable passed its own.
  const problems: string[] = [];
  const schedule = parseSchedule(v.MDS_WEBHOOK_RETRY_SCHEDULE);
  if (schedule.ok) config.webhooks.delaysMs = schedule.delaysMs;
  else problems.push(`MDS_WEBHOOK_RETRY_SCHEDULE: ${schedule.problem}`);
  if (config.redisCluster && !config.redisUrl)
    problems.push('MDS_REDIS_CLUSTER=1 needs MDS_REDIS_URL: the address of one node of the cluster');
  if (config.headersTimeoutMs > config.requestTimeoutMs)
    problems.push(
      `MDS_HEADERS_TIMEOUT_MS: must not exceed the request timeout (MDS_REQUEST_TIMEOUT_MS, ${defaultOf('MDS_REQUEST_TIMEOUT_MS')} by default)`,
    );
  if (Boolean(config.tlsCert) !== Boolean(config.tlsKey))
    problems.push('MDS_TLS_CERT and MDS_TLS_KEY: set both (HTTPS) or neither (HTTP)');
  if (Boolean(config.adminTlsCert) !== Boolean(config.adminTlsKey))
    problems.push('MDS_ADMIN_TLS_CERT and MDS_ADMIN_TLS_KEY: set both (HTTPS) or neither (HTTP)');
  else if (config.adminPort !== undefined) {
    const problem = adminListenerProblem(
      config.adminHost,
      Boolean(config.adminTlsCert),
      config.adminAllowPlaintext === true,
    );
    if (problem) problems.push(problem);
  }
  if (config.reportPort !== undefined) {
    const problem = reportListenerProblem(
      config.reportHost,
      Boolean(config.adminTlsCert && config.adminTlsKey),
      config.adminAllowPlaintext === true,
    );
    if (problem) problems.push(problem);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/** MDS_CONSENSUS_WINDOW and MDS_CONSENSUS_QUORUM, already checked, as values; the defaults when not given. */
/** The consensus settings of `env` (for `mds consensus verify`: the serving process's own, checked alike). */
export function readConsensusSettings(env: NodeJS.ProcessEnv): ConsensusSettings {
  const v = read(['MDS_CONSENSUS_WINDOW', 'MDS_CONSENSUS_QUORUM'], env, {});
  return consensusSettings(v.MDS_CONSENSUS_WINDOW, v.MDS_CONSENSUS_QUORUM);
}

export function consensusSettings(
  window = defaultOf('MDS_CONSENSUS_WINDOW'),
  quorum = defaultOf('MDS_CONSENSUS_QUORUM'),
): { windowMs: number; quorum: number } {
  return {
    windowMs: Number(window.slice(0, -1)) * UNIT_SECONDS[window.slice(-1)]! * 1000,
    quorum: Number(quorum),
  };
}

export const DEFAULT_ADMIN_HOST = defaultOf('MDS_ADMIN_HOST');
export const DEFAULT_REPORT_HOST = defaultOf('MDS_REPORT_HOST');

/** Whether `host` names this machine only: 127.0.0.0/8, ::1 or localhost. */
export function isLoopback(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  return (
    h === 'localhost' || h === '::1' || h === '::ffff:127.0.0.1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h)
  );
}

/**
 * The admin listener carries admin tokens and every change to the service:
 * off the loopback it serves HTTPS, unless the operator says TLS ends at a
 * proxy in front (docs/decisions.md 58). The problem, or undefined.
 */
export function adminListenerProblem(
  host: string,
  tls: boolean,
  allowPlaintext: boolean,
): string | undefined {
  if (tls || allowPlaintext || isLoopback(host)) return undefined;
  return (
    `MDS_ADMIN_HOST: the admin listener would serve admin tokens over plain HTTP on ${host}, which is not a ` +
    'loopback address; set MDS_ADMIN_TLS_CERT and MDS_ADMIN_TLS_KEY (PEM files) to serve HTTPS, or ' +
    'MDS_ADMIN_ALLOW_PLAINTEXT=1 when TLS ends at a proxy in front of it'
  );
}

/**
 * The reporter listener carries reporter tokens: the admin listener's rule,
 * with its certificate (docs/decisions.md 110). The problem, or undefined.
 */
export function reportListenerProblem(
  host: string,
  tls: boolean,
  allowPlaintext: boolean,
): string | undefined {
  if (tls || allowPlaintext || isLoopback(host)) return undefined;
  return (
    `MDS_REPORT_HOST: the reporter listener would serve reporter tokens over plain HTTP on ${host}, which is ` +
    'not a loopback address; set MDS_ADMIN_TLS_CERT and MDS_ADMIN_TLS_KEY (PEM files) to serve HTTPS, or ' +
    'MDS_ADMIN_ALLOW_PLAINTEXT=1 when TLS ends at a proxy in front of it'
  );
}
