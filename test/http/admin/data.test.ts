/**
 * POST /admin/v1/data/{kind} (docs/decisions.md 51, 58): `mds import` over
 * HTTP on every backend. The body's Content-Type names its format; the same
 * rules and guards refuse what `mds import` refuses, all or nothing; a dry run
 * keeps nothing; the import's record and audit record name the admin token.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_MAX_IMPORT_BYTES } from '../../../src/schemas/admin.js';
import { type AdminHarness, startAdminHarness } from '../../support/admin.js';
import { backends } from '../../support/backends.js';
import { expectErrorBody } from '../../support/openapi.js';

const rate = (currency: string, day: string, buy: number) =>
  JSON.stringify({ currency, source: 'parallel', buy, sell: buy + 2, updatedAt: `${day}T09:00:00.000Z` });

describe.each(backends())('data imports over the admin API on $name', (backend) => {
  let h: AdminHarness;
  let token: string;
  let tokenId: string;
  beforeAll(async () => {
    h = await startAdminHarness(backend, { seed: true });
    ({ token, publicId: tokenId } = await h.token(['data:write', 'audit:read'], 'data feed'));
  });
  afterAll(async () => h?.close());

  const send = (kind: string, body: string, type: string, query = '') =>
    h.call('POST', `/admin/v1/data/${kind}${query}`, { token, body, headers: { 'content-type': type } });

  it('imports NDJSON, a JSON array and CSV; a dry run reports the same and keeps nothing', async () => {
    const ndjson = `${rate('EUR', '2020-01-06', 250)}\n${rate('USD', '2020-01-06', 230)}\n`;
    const before = (await h.store.imports.listImports(100)).length;
    const dry = await send('rates', ndjson, 'application/x-ndjson', '?dryRun=true');
    expect(dry.statusCode, dry.body).toBe(200);
    expect(dry.json().data).toMatchObject({ kind: 'rates', dryRun: true, received: 2, inserted: 2 });
    expect((await h.store.imports.listImports(100)).length).toBe(before);

    const real = await send('rates', ndjson, 'application/x-ndjson');
    expect(real.json().data).toMatchObject({ dryRun: false, received: 2, inserted: 2 });
    const [record] = await h.store.imports.listImports(1);
    expect(record).toMatchObject({ id: real.json().data.importId, actor: tokenId, format: 'ndjson' });

    const array = `[${rate('EUR', '2020-01-06', 251)}]`;
    const revised = await send('rates', array, 'application/json');
    expect(revised.json().data).toMatchObject({ updated: 1 });
    expect(revised.json().data.revisions[0]).toMatchObject({
      code: 'EUR',
      source: 'parallel',
      old: { buy: 250 },
      new: { buy: 251 },
    });

    const csv = 'purity,buy,sell,updatedAt\n21K,18400,18800,2020-01-06T09:30:00.000Z\n';
    expect((await send('gold', csv, 'text/csv; charset=utf-8')).json().data).toMatchObject({
      kind: 'gold',
      inserted: 1,
    });

    const audit = await h.call('GET', `/admin/v1/audit?action=data.import&actor=${tokenId}`, { token });
    expect(audit.json().data.length).toBeGreaterThanOrEqual(3);
    expect(audit.json().data[0].actor).toEqual({ id: tokenId, label: 'data feed' });
  });

  it('refuses a bad input whole, one detail per problem naming its line', async () => {
    const body = `${rate('EUR', '2020-02-03', 250)}\n{"currency":"EUR","source":"parallel","buy":"abc"}\n${rate('ZZZ', '2020-02-03', 1)}\n`;
    const res = await send('rates', body, 'application/x-ndjson');
    const error = expectErrorBody(res, 400, 'invalid_request', expect.any(Array)).error;
    expect(error.message).toContain('nothing was written');
    const lines = (error.details as Array<{ parameter: string }>).map((d) => d.parameter);
    expect(lines).toContain('line 2');
    expect(lines).toContain('line 3');
    expect((await send('rates', body, 'application/x-ndjson', '?dryRun=true')).statusCode).toBe(400);
  });

  it('refuses an asset name a spreadsheet would run as a formula; Arabic and plain names pass', async () => {
    // docs/decisions.md 86: the directory's text reaches CSV cells and spreadsheets.
    const asset = (code: string, en: string) =>
      JSON.stringify({ code, symbol: 'F', names: { en, fr: 'Franc', ar: '\u200fفرنك' }, type: 'currency' });
    const body = `${asset('XFA', 'Euro')}\n${asset('XFB', '=1+1')}\n`;
    const res = await send('assets', body, 'application/x-ndjson');
    const error = expectErrorBody(res, 400, 'invalid_request', expect.any(Array)).error;
    expect(error.details).toEqual([
      {
        parameter: 'line 2',
        message:
          'names.en: "=1+1" must not begin with =, +, -, @, a tab or a carriage return, which a spreadsheet ' +
          'runs as a formula: remove or reword the first character',
      },
    ]);
    const good = await send('assets', asset('XFA', 'Euro'), 'application/x-ndjson', '?dryRun=true');
    expect(good.statusCode, good.body).toBe(200);
  });

  it('applies the guards; maxChange and acceptOutliers let a reviewed move through', async () => {
    const body = `${rate('GBP', '2020-03-02', 300)}\n${rate('GBP', '2020-03-03', 600)}\n`;
    expectErrorBody(
      await send('rates', body, 'application/x-ndjson', '?dryRun=true'),
      400,
      'invalid_request',
      [{ parameter: 'line 2', message: expect.stringContaining('%') }],
    );
    expect((await send('rates', body, 'application/x-ndjson', '?dryRun=true&maxChange=150')).statusCode).toBe(
      200,
    );
    const accepted = await send('rates', body, 'application/x-ndjson', '?dryRun=true&acceptOutliers=true');
    expect(accepted.statusCode).toBe(200);
    expect(accepted.json().data.outliers).toEqual([{ line: 2, message: expect.any(String) }]);
    expectErrorBody(
      await send('rates', body, 'application/x-ndjson', '?maxChange=0'),
      400,
      'invalid_parameter',
      [{ parameter: 'maxChange', message: expect.stringContaining('above 0') }],
    );
  });

  it('answers a 12 MB CSV of 300,000 bad rows with a small grouped report (decisions 93)', async () => {
    const rows = ['currency;source;buy;sell;updatedAt'];
    for (let i = 0; i < 300_000; i++)
      rows.push(`EUR;parallel;262,5;264,75;2020-04-${String(1 + (i % 28)).padStart(2, '0')} 09:00`);
    rows.push('ZZZ;parallel;1;2;2020-05-01T09:00:00Z');
    const body = rows.join('\n');
    expect(body.length).toBeGreaterThan(12_000_000);
    const res = await send('rates', body, 'text/csv', '?dryRun=true');
    const error = expectErrorBody(res, 400, 'invalid_request', expect.any(Array)).error as unknown as {
      message: string;
      details: unknown[];
      report: { problems: { count: number; groups: unknown[]; byKind: unknown[] } };
    };
    expect(res.body.length).toBeLessThan(4_000);
    expect(error.message).toBe('import refused: 300001 problem(s), a real import would write nothing');
    expect(error.details).toEqual([
      {
        parameter: 'lines 2–300001 (300000 problems)',
        message: expect.stringMatching(/^updatedAt: "2020-04-01 09:00" has no time zone/),
      },
      { parameter: 'line 300002', message: expect.stringContaining('ZZZ is not in the asset directory') },
    ]);
    expect(error.report.problems).toMatchObject({ count: 300_001, lines: 300_001, groupsNotListed: 0 });
    expect(error.report.problems.byKind).toEqual([
      { kind: 'updatedAt has no time zone', count: 300_000 },
      { kind: 'currency not in the asset directory', count: 1 },
    ]);
  }, 180_000); // 300,000 rows parsed on a busy machine

  it('reads a spreadsheet export with timezone and dateOrder, as mds import does (decisions 94)', async () => {
    const body = [
      'currency;source;buy;sell;updatedAt;;',
      'EUR;parallel;1 262,50;1.264,75;28/04/2020 09:30;;',
      ';;;;;;',
      'EUR;parallel;1 262,50;1.264,75;28/04/2020 09:30;;',
    ].join('\r\n');
    const refused = await send(
      'rates',
      body,
      'text/csv',
      '?dryRun=true&maxChange=10000&timezone=Africa/Algiers',
    );
    expect(refused.json().error.details[0].message).toContain('--date-order dmy');
    const read = await send(
      'rates',
      body,
      'text/csv',
      '?dryRun=true&maxChange=10000&timezone=Africa/Algiers&dateOrder=dmy',
    );
    expect(read.statusCode, read.body).toBe(200);
    expect(read.json().data).toMatchObject({
      received: 1,
      emptyRows: 1,
      emptyColumns: 2,
      duplicateRows: { count: 1, groups: [{ line: 4, lastLine: 4, count: 1, message: 'repeats line 2' }] },
    });
    expectErrorBody(
      await send('rates', body, 'text/csv', '?timezone=Mars/Olympus'),
      400,
      'invalid_parameter',
      [{ parameter: 'timezone', message: expect.stringContaining('is not an IANA time zone name') }],
    );
    expectErrorBody(await send('rates', body, 'text/csv', '?dateOrder=ymd'), 400, 'invalid_parameter', [
      { parameter: 'dateOrder', message: 'must be dmy (day first) or mdy (month first)' },
    ]);
  });

  it('answers an unknown kind 404, another media type 415, a body over the limit 413', async () => {
    expectErrorBody(await send('stocks', '[]', 'application/json'), 404, 'not_found');
    expectErrorBody(await send('rates', 'x', 'text/plain'), 415, 'unsupported_media_type');
    if (backend.name !== 'sqlite') return; // the limit is the listener's, not the store's: once is enough
    const big = 'x'.repeat(ADMIN_MAX_IMPORT_BYTES + 1);
    expectErrorBody(await send('rates', big, 'text/csv'), 413, 'payload_too_large');
  });
});
