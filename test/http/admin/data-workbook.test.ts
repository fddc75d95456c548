/**
 * POST /admin/v1/data/rates with the Bank of Algeria's workbook
 * (docs/decisions.md 140, 141) on every backend: the body's media type names
 * it, as for every format; the import runs on a thread with the rules, guards,
 * dry run and revisions of `mds import official-boa`; a body over the
 * workbook's cap is a 413 and a zip bomb a 400 naming it, nothing written.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { XLSX_MEDIA_TYPE } from '../../../src/schemas/admin.js';
import { type AdminHarness, startAdminHarness } from '../../support/admin.js';
import { backends } from '../../support/backends.js';
import { expectErrorBody } from '../../support/openapi.js';
import {
  boaWorkbook,
  layoutSheets,
  serial,
  shiftedBomb,
  uncountedBomb,
  zip64Marked,
  zipOf,
} from '../../support/workbook.js';

const sheets = (usd3: number) => layoutSheets('2020-06', usd3);

describe.each(backends())('the workbook of official rates over the admin API on $name', (backend) => {
  let h: AdminHarness;
  let token: string;
  beforeAll(async () => {
    h = await startAdminHarness(backend, { seed: true });
    ({ token } = await h.token(['data:write']));
    // Stored before with another value: the workbook revises it.
    const stored =
      '{"currency":"EUR","source":"official","buy":150,"sell":150,"updatedAt":"2020-06-02T11:00:00Z"}';
    const res = await send(stored, 'application/x-ndjson');
    expect(res.statusCode, res.body).toBe(200);
  });
  afterAll(async () => h?.close());
  afterEach(() => {
    delete process.env.MDS_WORKBOOK_MAX_MB;
  });

  const send = (body: string | Buffer, type: string, query = '', kind = 'rates') =>
    h.call('POST', `/admin/v1/data/${kind}${query}`, { token, body, headers: { 'content-type': type } });
  const official = async (currency: string) =>
    (
      await h.store.market.rateHistory({
        currency,
        source: 'official',
        from: Date.UTC(2020, 5, 1),
        to: Date.UTC(2020, 5, 30),
        limit: 10,
      })
    ).map((r) => [new Date(r.updatedAt).toISOString(), r.buy, r.sell]);

  it('a dry run keeps nothing; the import revises the stored date; a re-import with one change, one revision', async () => {
    const body = await boaWorkbook(sheets(134.25));
    const dry = await send(body, XLSX_MEDIA_TYPE, '?dryRun=true');
    expect(dry.statusCode, dry.body).toBe(200);
    expect(dry.json().data).toMatchObject({ dryRun: true, received: 5, inserted: 4, updated: 1 });
    expect(await official('USD')).toEqual([]);

    const real = await send(body, XLSX_MEDIA_TYPE);
    expect(real.statusCode, real.body).toBe(200);
    expect(real.json().data).toMatchObject({
      kind: 'rates',
      dryRun: false,
      received: 5,
      inserted: 4,
      updated: 1,
      emptyRows: 2,
      revisions: [
        {
          code: 'EUR',
          source: 'official',
          updatedAt: '2020-06-02T11:00:00.000Z',
          old: { buy: 150, sell: 150 },
          new: { buy: 150.25, sell: 150.25 },
        },
      ],
      skippedSheets: [{ sheet: 'XAF - DZD', reason: 'XAF is not in the asset directory' }],
    });
    const [record] = await h.store.imports.listImports(1);
    expect(record).toMatchObject({ id: real.json().data.importId, format: 'xlsx' });
    // Its data.imported event, as every import's: official rates, up to the newest date's noon.
    const written = await h.store.webhooks.importsAfter(null, 1000);
    expect(written.find((i) => i.id === record!.id)).toMatchObject({
      sources: ['official'],
      received: 5,
      inserted: 4,
      updated: 1,
      newestUpdatedAt: Date.parse('2020-06-03T11:00:00Z'),
    });
    // 89.5321 dinars per 100 yen.
    expect(await official('JPY')).toEqual([['2020-06-02T11:00:00.000Z', 895_321, 895_321]]);
    expect(await official('EUR')).toEqual([
      ['2020-06-03T11:00:00.000Z', 150_500_000, 150_500_000],
      ['2020-06-02T11:00:00.000Z', 150_250_000, 150_250_000],
    ]);

    const again = await send(await boaWorkbook(sheets(134.3)), XLSX_MEDIA_TYPE);
    expect(again.json().data).toMatchObject({ received: 5, inserted: 0, updated: 1, unchanged: 4 });
    expect(again.json().data.revisions).toEqual([
      {
        code: 'USD',
        source: 'official',
        updatedAt: '2020-06-03T11:00:00.000Z',
        old: { buy: 134.25, sell: 134.25 },
        new: { buy: 134.3, sell: 134.3 },
      },
    ]);
  });

  it('reports the computed rates it rounded to 6 decimals', async () => {
    // 89.53215 per 100 yen: 0.8953215 per yen, 0.895322 rounded half away from zero.
    const body = await boaWorkbook([{ name: 'JPY - DZD', rows: [[serial('2020-06-10'), 89.53215]] }]);
    const dry = await send(body, XLSX_MEDIA_TYPE, '?dryRun=true');
    expect(dry.statusCode, dry.body).toBe(200);
    expect(dry.json().data).toMatchObject({ dryRun: true, received: 1, inserted: 1, roundedRates: 1 });
  });

  it('refuses a workbook over its cap (413), a zip bomb and a workbook sent as gold (400); nothing is written', async () => {
    const before = (await h.store.imports.listImports(100)).length;
    process.env.MDS_WORKBOOK_MAX_MB = '1';
    expectErrorBody(await send(Buffer.alloc(1024 * 1024 + 1), XLSX_MEDIA_TYPE), 413, 'payload_too_large');
    delete process.env.MDS_WORKBOOK_MAX_MB;

    const liar = zipOf([{ name: 'xl/workbook.xml', data: Buffer.alloc(2 * 1024 * 1024), declared: 100 }]);
    const bomb = expectErrorBody(
      await send(liar, XLSX_MEDIA_TYPE),
      400,
      'invalid_request',
      expect.any(Array),
    );
    expect(bomb.error.message).toBe(
      'the workbook is refused: its part xl/workbook.xml does not inflate to its declared size (a zip bomb?)',
    );

    // Directories another ZIP reader would read otherwise (two hide 50 MB, test/support/workbook.ts), a ZIP64 marker, a part twice.
    for (const [zip, why] of [
      [
        uncountedBomb(),
        'its ZIP central directory is damaged (it holds more parts than the 1 its end record counts)',
      ],
      [shiftedBomb(), 'its ZIP central directory is damaged (it does not end where its end record begins)'],
      [zip64Marked(), 'it is a ZIP64 archive, which no workbook of rates needs'],
      [
        zipOf([
          { name: 'xl/workbook.xml', data: Buffer.from('<workbook/>') },
          { name: 'xl/workbook.xml', data: Buffer.from('<workbook/>') },
        ]),
        'it holds the part xl/workbook.xml twice',
      ],
    ] as const) {
      const refused = expectErrorBody(
        await send(zip, XLSX_MEDIA_TYPE),
        400,
        'invalid_request',
        expect.any(Array),
      );
      expect(refused.error.message).toBe(`the workbook is refused: ${why}`);
    }

    const gold = await send(await boaWorkbook(sheets(134.3)), XLSX_MEDIA_TYPE, '', 'gold');
    expect(expectErrorBody(gold, 400, 'invalid_request', expect.any(Array)).error.message).toContain(
      'a workbook holds official rates',
    );
    expect((await h.store.imports.listImports(100)).length).toBe(before);
  });
});
