/**
 * Every MDS_* variable, declared once (src/config/environment.ts):
 * each with a description, the default the code uses and, when some values
 * are wrong, what to write instead; read only through src/config*, so a bad
 * value is named with that message wherever it is used; and the table of
 * docs/configuration.md rendered from the declaration, defaults included.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import {
  CommandEnvironment,
  ConfigError,
  defaultOf,
  Environment,
  readCommandConfig,
  readConfig,
  ServeEnvironment,
  StoreEnvironment,
  setting,
  staleAfterSeconds,
} from '../../src/config.js';
import { registerOpenApi } from '../../src/http/openapi.js';
import { DEFAULT_DATABASE, openStore } from '../../src/storage/open.js';
import { DEFAULT_DELAYS_MS, parseSchedule } from '../../src/webhooks/schedule.js';
import { DEFAULT_WEBHOOK_SETTINGS } from '../../src/webhooks/settings.js';
import { mds } from '../support/cli.js';
import { DOC, documentedTable, renderTable, unpadded } from './environment-table.js';

const ROOT = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'mds-environment-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The ConfigError's problems `fn` throws, or [] when it does not throw. */
function problems(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
  return [];
}

describe('the MDS_* variables', () => {
  const all = Object.entries(Environment.properties) as [string, Record<string, unknown>][];

  it('are every variable of the serve, command and store schemas, each declared once', () => {
    const parts = [ServeEnvironment, CommandEnvironment, StoreEnvironment].flatMap((s) =>
      Object.keys(s.properties),
    );
    expect(new Set(parts).size).toBe(parts.length);
    expect(Object.keys(Environment.properties).sort()).toEqual(parts.sort());
  });

  it('each has a description and a default; each that can be wrong says what to write instead', () => {
    for (const [name, schema] of all) {
      expect(name).toMatch(/^MDS_[A-Z_]+$/);
      expect(schema.description, name).toBeTruthy();
      expect(typeof schema.default, name).toBe('string');
      if (schema.pattern !== undefined || schema.anyOf !== undefined)
        expect(schema.errorMessage, name).toMatch(/^must be /);
    }
  });

  it('each default is a value its own schema takes', () => {
    for (const [name, schema] of all)
      if (schema.default !== '')
        expect(TypeCompiler.Compile(schema as never).Check(schema.default), name).toBe(true);
  });

  it('are the table of docs/configuration.md, names, descriptions and defaults', () => {
    // On a difference: `npx vite-node test/config/environment-table.ts -- --write` renders it again.
    expect(unpadded(documentedTable()), DOC).toBe(unpadded(renderTable()));
  });

  it('unset, are the values the code uses: the declared defaults', () => {
    const config = readConfig({});
    const number = (name: Parameters<typeof defaultOf>[0]) => Number(defaultOf(name));
    expect(config).toMatchObject({
      host: defaultOf('MDS_HOST'),
      port: number('MDS_PORT'),
      redisCluster: false,
      redisPrefix: defaultOf('MDS_REDIS_PREFIX'),
      logLevel: defaultOf('MDS_LOG_LEVEL'),
      headersTimeoutMs: number('MDS_HEADERS_TIMEOUT_MS'),
      requestTimeoutMs: number('MDS_REQUEST_TIMEOUT_MS'),
      adminPort: undefined,
      adminHost: defaultOf('MDS_ADMIN_HOST'),
      drainMs: number('MDS_DRAIN_MS'),
      contact: { name: defaultOf('MDS_CONTACT_NAME') },
      staleAfter: staleAfterSeconds(defaultOf('MDS_STALE_AFTER')),
      webhooks: { policy: { allowHttp: false, allowPrivate: false }, pollMs: number('MDS_WEBHOOK_POLL_MS') },
    });
    const schedule = parseSchedule(defaultOf('MDS_WEBHOOK_RETRY_SCHEDULE'));
    expect(schedule.ok && schedule.delaysMs).toEqual(config.webhooks.delaysMs);
    // What the code falls back on where no configuration is given (tests, embedded uses) is the same.
    expect(config.webhooks.delaysMs).toEqual(DEFAULT_DELAYS_MS);
    expect(DEFAULT_WEBHOOK_SETTINGS.pollMs).toBe(config.webhooks.pollMs);
    expect(DEFAULT_DATABASE).toBe(defaultOf('MDS_DATABASE_URL'));
  });

  it('are read only in src/config*: every other file is given its value', () => {
    const offenders: string[] = [];
    const walk = (path: string) => {
      for (const entry of readdirSync(path)) {
        const file = join(path, entry);
        if (statSync(file).isDirectory()) walk(file);
        else if (
          file.endsWith('.ts') &&
          /process\.env\.MDS_|process\.env\[['"]MDS_/.test(readFileSync(file, 'utf8'))
        )
          offenders.push(relative(join(ROOT, 'src'), file));
      }
    };
    walk(join(ROOT, 'src'));
    expect(offenders.filter((f) => !f.startsWith('config'))).toEqual([]);
  });
});

describe('one variable, read where it is used (setting)', () => {
  it('gives the default when unset or empty, the value when valid', () => {
    expect(setting('MDS_SQLITE_MAX_PAGES', {})).toBe('');
    expect(setting('MDS_SQLITE_MAX_PAGES', { MDS_SQLITE_MAX_PAGES: '' })).toBe('');
    expect(setting('MDS_SQLITE_MAX_PAGES', { MDS_SQLITE_MAX_PAGES: '1000' })).toBe('1000');
  });

  it('throws one ConfigError naming the variable and what to write instead', () => {
    for (const bad of ['0', '-5', '12abc', '1e3', '99999999999'])
      expect(
        problems(() => setting('MDS_SQLITE_MAX_PAGES', { MDS_SQLITE_MAX_PAGES: bad })),
        bad,
      ).toEqual([
        'MDS_SQLITE_MAX_PAGES: must be a positive integer (a number of pages, e.g. 1000), or unset for no cap',
      ]);
  });
});

describe('MDS_SQLITE_MAX_PAGES, when a SQLite store opens', () => {
  const withPages = <T>(value: string, fn: () => T): T => {
    process.env.MDS_SQLITE_MAX_PAGES = value;
    try {
      return fn();
    } finally {
      delete process.env.MDS_SQLITE_MAX_PAGES;
    }
  };

  it('caps the file at that many pages', async () => {
    const store = withPages('777', () => openStore(join(dir, 'capped.sqlite')));
    try {
      const conn = (store as unknown as { conn: { db: { pragma(s: string, o: object): unknown } } }).conn;
      expect(conn.db.pragma('max_page_count', { simple: true })).toBe(777);
    } finally {
      await store.close();
    }
  });

  it('a bad value is a ConfigError naming it, before the file is created', () => {
    const path = join(dir, 'never', 'bad.sqlite');
    expect(problems(() => withPages('lots', () => openStore(path)))).toEqual([
      'MDS_SQLITE_MAX_PAGES: must be a positive integer (a number of pages, e.g. 1000), or unset for no cap',
    ]);
    expect(() => statSync(join(dir, 'never'))).toThrow(/ENOENT/);
  });
});

describe('every mds command (readCommandConfig)', () => {
  it('defaults: the embedded store and the project’s plan catalogue', () => {
    expect(readCommandConfig({})).toEqual({ databaseUrl: undefined, plansFile: undefined });
  });

  it('takes postgres:// URLs, sqlite:<path> and file paths; --db wins over MDS_DATABASE_URL', () => {
    for (const url of [
      'postgres://mds@db/mds',
      'postgresql://db/mds',
      'sqlite:./x.sqlite',
      './data/a b.sqlite',
    ])
      expect(readCommandConfig({ MDS_DATABASE_URL: url }).databaseUrl, url).toBe(url);
    expect(
      readCommandConfig(
        { MDS_DATABASE_URL: 'postgres://db/mds', MDS_PLANS_FILE: '/etc/mds/plans.json' },
        { MDS_DATABASE_URL: { flag: '--db', value: 'sqlite:/tmp/x' } },
      ),
    ).toEqual({ databaseUrl: 'sqlite:/tmp/x', plansFile: '/etc/mds/plans.json' });
  });

  it('names a bad store URL, as a variable or as --db, with what to write instead', () => {
    const message =
      'must be postgres://user@host/database, sqlite:<path> or a file path (e.g. ./data/mds.sqlite)';
    for (const bad of ['mysql://db/mds', 'sqlite:', 'POSTGRES://db/mds'])
      expect(
        problems(() => readCommandConfig({ MDS_DATABASE_URL: bad })),
        bad,
      ).toEqual([`MDS_DATABASE_URL: ${message}`]);
    expect(
      problems(() => readCommandConfig({}, { MDS_DATABASE_URL: { flag: '--db', value: 'redis://x' } })),
    ).toEqual([`--db: ${message}`]);
  });

  it('mds refuses a bad MDS_DATABASE_URL before it runs, exit code 2', async () => {
    const res = await mds(['keys', 'list'], { env: { MDS_DATABASE_URL: 'mysql://db/mds' } });
    expect(res.status).toBe(2);
    expect(res.stdout).toBe('');
    expect(res.stderr).toBe(
      'mds: MDS_DATABASE_URL: must be postgres://user@host/database, sqlite:<path> or a file path (e.g. ./data/mds.sqlite)\n',
    );
  });

  it('mds names a bad MDS_SQLITE_MAX_PAGES when it opens the store, exit code 2', async () => {
    const res = await mds(['migrate', '--db', join(dir, 'cli.sqlite')], {
      env: { MDS_SQLITE_MAX_PAGES: 'lots' },
    });
    expect(res.status).toBe(2);
    expect(res.stderr).toBe(
      'mds: MDS_SQLITE_MAX_PAGES: must be a positive integer (a number of pages, e.g. 1000), or unset for no cap\n',
    );
  });

  it('mds grants create reads the plan catalogue MDS_PLANS_FILE names', async () => {
    const missing = join(dir, 'no-such-plans.json');
    writeFileSync(join(dir, 'p.sqlite'), ''); // an empty store: mds refuses a missing one (decisions 90)
    const res = await mds(
      ['grants', 'create', '--account', 'acc_x', '--plan', 'free', '--db', join(dir, 'p.sqlite')],
      {
        env: { MDS_PLANS_FILE: missing },
      },
    );
    expect(res.status).toBe(2);
    expect(res.stderr).toContain(`plan catalogue ${missing}:`);
  });
});

describe('the OpenAPI document’s contact (MDS_CONTACT_*)', () => {
  it('is a name only by default; the variables give name, email and url', () => {
    expect(readConfig({}).contact).toEqual({ name: 'Market Data Service (DZD) API support' });
    expect(readConfig({ MDS_CONTACT_EMAIL: 'api@example.com' }).contact).toEqual({
      name: 'Market Data Service (DZD) API support',
      email: 'api@example.com',
    });
    expect(
      readConfig({ MDS_CONTACT_NAME: 'Ops', MDS_CONTACT_URL: 'https://example.com/support' }).contact,
    ).toEqual({ name: 'Ops', url: 'https://example.com/support' });
  });

  it('names a bad email or URL with the other problems', () => {
    expect(
      problems(() =>
        readConfig({ MDS_CONTACT_EMAIL: 'support', MDS_CONTACT_URL: 'example.com', MDS_DRAIN_MS: 'x' }),
      ),
    ).toEqual([
      'MDS_DRAIN_MS: must be 0 to 999999 (ms)',
      'MDS_CONTACT_EMAIL: must be an email address, e.g. api@example.com',
      'MDS_CONTACT_URL: must be an http:// or https:// URL, e.g. https://example.com/support',
    ]);
  });

  it('reaches info.contact of the document', async () => {
    const read = async (contact?: { name: string; email?: string }) => {
      const app = Fastify();
      await registerOpenApi(app, contact);
      await app.ready();
      const doc = (app as unknown as { swagger(): { info: { contact: unknown } } }).swagger();
      await app.close();
      return doc.info.contact;
    };
    expect(await read()).toEqual({ name: 'Market Data Service (DZD) API support' });
    expect(await read({ name: 'Ops', email: 'ops@example.com' })).toEqual({
      name: 'Ops',
      email: 'ops@example.com',
    });
  });
});
