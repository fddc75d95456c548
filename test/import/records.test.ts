/**
 * Import records are validated by rules compiled from the entity schemas the
 * API declares (src/import/records.ts): the same fields, patterns and
 * messages, whatever the format.
 */
import { describe, expect, it } from 'vitest';
import { parseImport } from '../../src/import/parse.js';
import { AssetRecord, GoldImportRecord, RateRecord } from '../../src/import/records.js';
import { CONTROL_SENTENCE } from '../../src/schemas/admin-check.js';
import { ASSET_CODE_PATTERN, AssetCode } from '../../src/schemas/common.js';
import { Asset, GoldRecord, HistoryRate } from '../../src/schemas/market.js';
import { plain } from '../support/import-problems.js';

const T0 = '2026-01-10T09:00:00.000Z';
const MSG_CODE = 'must be an uppercase asset code (2-10 of A-Z, 0-9)';
const MSG_FORMULA =
  'must not begin with =, +, -, @, a tab or a carriage return, which a spreadsheet runs as a formula: ' +
  'remove or reword the first character';

describe('import records from the entity schemas', () => {
  it('take their fields from the entities, the asset-code rule included', () => {
    const { symbol, names, ...rest } = AssetRecord.properties;
    const { symbol: entitySymbol, names: entityNames, ...entityRest } = Asset.properties;
    expect(rest).toEqual(entityRest);
    // The labels: the entity's rule, then the formula rule (docs/decisions.md 86).
    expect(symbol.allOf[0]).toEqual(entitySymbol);
    for (const lang of ['en', 'fr', 'ar'] as const) {
      expect(names.properties[lang].allOf[0]).toEqual(entityNames.properties[lang]);
    }
    expect(AssetRecord.properties.code).toBe(AssetCode);
    expect(RateRecord.properties.currency).toBe(HistoryRate.properties.currency);
    expect(RateRecord.properties.source).toBe(HistoryRate.properties.source);
    expect(GoldImportRecord.properties.purity).toBe(GoldRecord.properties.purity);
    expect(AssetCode.pattern).toBe(ASSET_CODE_PATTERN);
    expect(AssetCode.errorMessage).toBe(MSG_CODE);
  });

  it('reject a bad asset code with the same message in every format', () => {
    const bad = { currency: 'eur', source: 'parallel', buy: '1', sell: '2', updatedAt: T0 };
    expect(plain(parseImport('rates', `${JSON.stringify(bad)}\n`, 'ndjson').problems)).toEqual([
      { line: 1, message: `currency: "eur" ${MSG_CODE}` },
    ]);
    expect(plain(parseImport('rates', JSON.stringify([bad]), 'json').problems)).toEqual([
      { line: 1, message: `currency: "eur" ${MSG_CODE}` },
    ]);
    expect(
      plain(
        parseImport('rates', `currency,source,buy,sell,updatedAt\neur,parallel,1,2,${T0}\n`, 'csv').problems,
      ),
    ).toEqual([{ line: 2, message: `currency: "eur" ${MSG_CODE}` }]);
    const asset = { code: 'us$', symbol: '$', names: { en: 'a', fr: 'b', ar: 'c' }, type: 'currency' };
    expect(plain(parseImport('assets', `${JSON.stringify(asset)}\n`, 'ndjson').problems)).toEqual([
      { line: 1, message: `code: "us$" ${MSG_CODE}` },
    ]);
  });

  it('refuse a symbol or name a spreadsheet would run as a formula, in every format', () => {
    const asset = (symbol: string, en: string) => ({
      code: 'XFA',
      symbol,
      names: { en, fr: 'Franc', ar: '\u200fفرنك' },
      type: 'currency',
    });
    const cases: Array<[string, string, string]> = [
      ['=', 'Franc', 'symbol: "="'],
      ['F', '=1+1', 'names.en: "=1+1"'],
      ['F', '+Franc', 'names.en: "+Franc"'],
      ['F', '-Franc', 'names.en: "-Franc"'],
      ['F', '@SUM(A1:A9)', 'names.en: "@SUM(A1:A9)"'],
    ];
    for (const [symbol, en, echoed] of cases) {
      expect(plain(parseImport('assets', JSON.stringify([asset(symbol, en)]), 'json').problems), en).toEqual([
        { line: 1, message: `${echoed} ${MSG_FORMULA}` },
      ]);
    }
    // A tab or CR in JSON is no file's structure: a control character (decisions 89), not quoted.
    for (const en of ['\tFranc', '\rFranc']) {
      expect(plain(parseImport('assets', JSON.stringify([asset('F', en)]), 'json').problems)).toEqual([
        { line: 1, message: `names.en: ${CONTROL_SENTENCE}` },
      ]);
    }
    expect(
      plain(
        parseImport(
          'assets',
          'code,symbol,type,name_en,name_fr,name_ar\nXFA,F,currency,Franc,@Franc,فرنك\nXFB,F,currency,"\tFranc",Franc,فرنك\n',
          'csv',
        ).problems,
      ),
    ).toEqual([
      { line: 2, message: `name_fr: "@Franc" ${MSG_FORMULA}` },
      { line: 3, message: `name_en: "\\tFranc" ${MSG_FORMULA}` },
    ]);
    // A formula character later on, an Arabic name and its right-to-left mark are names like any other.
    const fine = [asset('F', 'Euro'), asset('€', 'A-1 = B+C @ home'), asset('F', 'يورو')].map((a, i) => ({
      ...a,
      code: `XF${i}`,
    }));
    expect(plain(parseImport('assets', JSON.stringify(fine), 'json').problems)).toEqual([]);
  });

  it('count the length of a symbol or name in characters, not UTF-16 units', () => {
    const asset = (symbol: string) => ({
      code: 'XAU',
      symbol,
      names: { en: '🪙'.repeat(200), fr: 'Or', ar: 'ذهب' },
      type: 'metal',
    });
    expect(plain(parseImport('assets', JSON.stringify([asset('🪙'.repeat(16))]), 'json').problems)).toEqual(
      [],
    );
    expect(plain(parseImport('assets', JSON.stringify([asset('🪙'.repeat(17))]), 'json').problems)).toEqual([
      {
        line: 1,
        message: `symbol: "${'🪙'.repeat(17)}" must be a non-empty string of at most 16 characters`,
      },
    ]);
    expect(plain(parseImport('assets', JSON.stringify([asset(' \t\u00a0')]), 'json').problems)).toEqual([
      { line: 1, message: `symbol: ${CONTROL_SENTENCE}` },
    ]);
    expect(plain(parseImport('assets', JSON.stringify([asset(' \u00a0')]), 'json').problems)).toEqual([
      { line: 1, message: 'symbol: " \u00a0" must be a non-empty string of at most 16 characters' },
    ]);
  });
});
