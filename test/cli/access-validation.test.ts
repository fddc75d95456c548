/**
 * The admin CLI refuses bad account, grant and key options with a sentence
 * naming the option (decisions §3, §4, §11): stderr, non-zero exit, nothing
 * on stdout, and nothing written. The sentence after the option is the admin
 * API's for the same field (one schema: test/use-cases/refusals.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, freshDatabase } from '../support/backends.js';
import { type CliResult, mdsInProcess as mds } from '../support/cli.js';

function refused(r: CliResult, message: string) {
  expect({ stdout: r.stdout, stderr: r.stderr, failed: r.status !== 0 && r.status !== null }).toEqual({
    stdout: '',
    stderr: `mds: ${message}\n`,
    failed: true,
  });
}

describe('mds refuses bad access options', () => {
  let db: Database;
  const run = (...args: string[]) => mds(args, { db: db.url });
  let account: string;
  let grant: string;
  const base = () => [
    '--account',
    account,
    '--plan',
    'custom',
    '--scopes',
    'read',
    '--monthly-limit',
    '10',
    '--rpm',
    '5',
  ];

  beforeAll(async () => {
    db = await freshDatabase('sqlite');
    account = (await run('accounts', 'create', '--json')).json().id;
    grant = (await run('grants', 'create', ...base(), '--valid-from', '2025-01-01', '--json')).json().id;
  });
  afterAll(async () => db?.drop());

  it('accounts create: a malformed email', async () => {
    refused(await run('accounts', 'create', '--email', 'not-an-email'), '--email: must be an email address');
  });

  it('accounts create: an empty or blank name, as the admin API refuses it', async () => {
    const [empty, blank] = await Promise.all([
      run('accounts', 'create', '--name', ''),
      run('accounts', 'create', '--name', '   '),
    ]);
    refused(empty, '--name: must be 1 to 200 characters, not blank, without control characters');
    refused(blank, '--name: must be 1 to 200 characters, not blank, without control characters');
    expect(empty.status).toBe(2);
    // Nothing was written: the one account is the one made before these tests.
    expect((await run('accounts', 'list', '--json')).json().accounts).toHaveLength(1);
  });

  it('grants create: each required option, when missing, is named', async () => {
    const without = (option: string) => {
      const args = base();
      const i = args.indexOf(option);
      return [...args.slice(0, i), ...args.slice(i + 2)];
    };
    const results = await Promise.all(
      ['--account', '--plan', '--scopes', '--monthly-limit', '--rpm'].map((o) =>
        run('grants', 'create', ...without(o)),
      ),
    );
    refused(results[0]!, '--account is required');
    refused(results[1]!, '--plan is required');
    refused(results[2]!, '--scopes is required (plan "custom" is not in the plan catalogue)');
    refused(results[3]!, '--monthly-limit is required (plan "custom" is not in the plan catalogue)');
    refused(results[4]!, '--rpm is required (plan "custom" is not in the plan catalogue)');
  });

  it('grants create: invalid values', async () => {
    const swap = (from: string, to: string) => base().map((a) => (a === from ? to : a));
    const results = await Promise.all([
      run('grants', 'create', ...swap(account, 'acc_nobody')),
      run('grants', 'create', ...swap('10', '0')),
      run('grants', 'create', ...swap('5', 'lots')),
      run('grants', 'create', ...swap('read', 'rates:read,rates:spot:read,gold:read')),
      run('grants', 'create', ...swap('read', ' , ')),
      run('grants', 'create', ...base(), '--valid-from', '2030-01-01', '--valid-until', '2029-01-01'),
      run('grants', 'create', ...base(), '--valid-until', 'next year'),
      run('grants', 'create', ...base(), '--valid-until', '2030-02-30'),
    ]);
    refused(results[0]!, '--account: no account acc_nobody');
    refused(results[1]!, '--monthly-limit: must be an integer from 1 to 1000000000000');
    refused(results[2]!, '--rpm: must be an integer from 1 to 1000000000000');
    refused(results[3]!, '--scopes: unknown scope "rates:spot:read"');
    refused(results[4]!, '--scopes: must list 1 to 50 scopes');
    refused(results[5]!, '--valid-until: must be after --valid-from');
    refused(results[6]!, '--valid-until: must be an ISO 8601 date-time such as 2027-01-01T00:00:00Z');
    refused(results[7]!, '--valid-until: must be an ISO 8601 date-time such as 2027-01-01T00:00:00Z');
  });

  it('an unknown scope with --json is a JSON error naming it', async () => {
    const r = await run(
      'grants',
      'create',
      ...base().map((a) => (a === 'read' ? 'read,admin:write' : a)),
      '--json',
    );
    expect(r.stdout).toBe('');
    expect(r.status).not.toBe(0);
    expect(r.errorJson()).toEqual({ error: { message: '--scopes: unknown scope "admin:write"' } });
  });

  it('grants update: invalid status, scopes, limits and validity; unknown grant', async () => {
    const results = await Promise.all([
      run('grants', 'update', grant),
      run('grants', 'update', grant, '--status', 'paused'),
      run('grants', 'update', grant, '--scopes', 'gold:read,silver:read'),
      run('grants', 'update', grant, '--valid-until', '2024-12-31'),
      run('grants', 'update', grant, '--monthly-limit', '-3'),
      run('grants', 'update', 'grt_nothing', '--rpm', '5'),
      run('grants', 'update', grant, '--plan', 'pro'),
    ]);
    refused(results[0]!, 'nothing to update: give at least one option');
    refused(results[1]!, '--status: must be one of active, suspended, cancelled');
    refused(results[2]!, '--scopes: unknown scope "silver:read"');
    refused(results[3]!, '--valid-until: must be after the grant starts');
    expect(results[4]!.status).not.toBe(0); // '-3' reads as an option: refused either way
    expect(results[4]!.stdout).toBe('');
    refused(results[5]!, 'no grant grt_nothing');
    expect(results[6]!.status).not.toBe(0);
    expect(results[6]!.stderr).toMatch(/^mds: Unknown option '--plan'/);
    // None of it was written.
    const g = (await run('grants', 'update', grant, '--rpm', '5', '--json')).json().grant;
    expect(g).toMatchObject({
      status: 'active',
      scopes: ['read'],
      monthlyRequestLimit: 10,
      validUntil: '9999-12-31T23:59:59.999Z',
    });
  });

  it('keys create: past expiry, unknown environment or scope, missing or unknown grant', async () => {
    const results = await Promise.all([
      run('keys', 'create', '--grant', grant, '--expires-at', '2020-01-01T00:00:00Z'),
      run('keys', 'create', '--grant', grant, '--expires-at', new Date(Date.now() - 60_000).toISOString()),
      run('keys', 'create', '--grant', grant, '--environment', 'prod'),
      run('keys', 'create', '--grant', grant, '--scopes', 'gold:latest:read,gold:spot:read'),
      run('keys', 'create', '--grant', 'grt_nothing'),
      run('keys', 'create', '--label', 'x'),
    ]);
    refused(results[0]!, '--expires-at: must be in the future');
    refused(results[1]!, '--expires-at: must be in the future');
    refused(results[2]!, '--environment: must be live or test');
    refused(results[3]!, '--scopes: unknown scope "gold:spot:read"');
    refused(results[4]!, '--grant: no grant grt_nothing');
    refused(results[5]!, '--grant is required');
    // No key was created by any of them.
    expect((await run('keys', 'list', '--json')).json()).toEqual({ keys: [] });
  });

  it('keys revoke and usage: unknown ids and missing arguments', async () => {
    const results = await Promise.all([
      run('keys', 'revoke', 'nosuchkey000'),
      run('keys', 'revoke'),
      run('usage', 'grt_nothing'),
      run('usage'),
    ]);
    refused(results[0]!, 'no key nosuchkey000');
    refused(results[1]!, 'usage: mds keys revoke PUBLIC_ID');
    refused(results[2]!, 'no grant grt_nothing');
    refused(
      results[3]!,
      'usage: mds usage GRANT_ID [--daily [--from YYYY-MM-DD] [--to YYYY-MM-DD]]   (--daily: per UTC day and key; default the current month)',
    );
  });
});
