/**
 * The shipped asset directory, config/assets.json (decisions 54): every
 * currency quoted against the dinar in Algeria, the metals and the crypto
 * assets, each record one `mds import assets` accepts (checked by the import's
 * own parser), with names in English, French and Arabic and a symbol no other
 * entry shows. It ships with the package, beside config/plans.json (the CLI
 * tests, test/cli/init-flow.ts, find it from the bundled dist/mds.mjs).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ASSET_DIRECTORY_FILE } from '../../src/cli/commands/init.js';
import type { Asset } from '../../src/domain/types.js';
import { parseImport } from '../../src/import/parse.js';

const ROOT = join(import.meta.dirname, '..', '..');
const text = readFileSync(join(ROOT, 'config', 'assets.json'), 'utf8');
const assets = JSON.parse(text) as Asset[];

const CURRENCIES = [
  ...['EUR', 'USD', 'GBP', 'CAD', 'CHF', 'CNY', 'TRY', 'SAR', 'AED', 'QAR', 'KWD', 'BHD', 'OMR'],
  ...['JOD', 'EGP', 'MAD', 'TND', 'LYD', 'MRU', 'JPY', 'RUB', 'SEK', 'NOK', 'DKK', 'AUD'],
];
const REQUIRED = { currency: CURRENCIES, metal: ['XAU', 'XAG'], crypto: ['BTC', 'ETH', 'USDT'] };

const ARABIC = /\p{Script=Arabic}/u;
/** Letters of another script than Arabic (digits, spaces and punctuation are neutral). */
const LATIN = /\p{Script=Latin}/u;

describe('config/assets.json', () => {
  it('is what mds init loads', () => {
    expect(ASSET_DIRECTORY_FILE).toBe(join(ROOT, 'config', 'assets.json'));
  });

  it('is a JSON array that mds import assets accepts whole, with no problem', () => {
    expect(Array.isArray(assets)).toBe(true);
    const parsed = parseImport('assets', text, 'json');
    expect(parsed.problems).toEqual([]);
    expect(parsed.records).toEqual(assets);
  });

  it('holds every required asset, with its type, each code once', () => {
    const codes = assets.map((a) => a.code);
    expect(new Set(codes).size).toBe(codes.length);
    for (const [type, required] of Object.entries(REQUIRED))
      for (const code of required) expect(assets.find((a) => a.code === code)?.type, code).toBe(type);
  });

  it('gives each asset a symbol no other entry shows', () => {
    const symbols = assets.map((a) => a.symbol);
    expect(symbols.filter((s, i) => symbols.indexOf(s) !== i)).toEqual([]);
    // The dollars and the yen/yuan carry their country (decisions 54).
    const symbol = (code: string) => assets.find((a) => a.code === code)?.symbol;
    expect([symbol('USD'), symbol('CAD'), symbol('AUD')]).toEqual(['US$', 'CA$', 'A$']);
    expect([symbol('JPY'), symbol('CNY')]).toEqual(['JP¥', 'CN¥']);
    expect([symbol('EUR'), symbol('GBP'), symbol('SAR'), symbol('AED')]).toEqual(['€', '£', 'ر.س', 'د.إ']);
  });

  it('names each asset in English and French (Latin script) and in Arabic (Arabic script)', () => {
    for (const a of assets) {
      expect(a.names.en, a.code).toMatch(LATIN);
      expect(a.names.fr, a.code).toMatch(LATIN);
      expect(a.names.en, a.code).not.toMatch(ARABIC);
      expect(a.names.fr, a.code).not.toMatch(ARABIC);
      expect(a.names.ar, a.code).toMatch(ARABIC);
      // Latin letters in an Arabic name only as the ticker it cites, e.g. "تيثر (USDT)".
      expect(a.names.ar.replace(`(${a.code})`, ''), a.code).not.toMatch(LATIN);
    }
    const names = (code: string) => assets.find((a) => a.code === code)?.names;
    expect(names('EUR')).toEqual({ en: 'Euro', fr: 'Euro', ar: 'يورو' });
    expect(names('USD')).toEqual({ en: 'US Dollar', fr: 'Dollar américain', ar: 'دولار أمريكي' });
    expect(names('TND')?.ar).toBe('دينار تونسي');
    expect(names('MAD')?.ar).toBe('درهم مغربي');
  });

  it('ships in the package, beside config/plans.json', () => {
    expect(existsSync(ASSET_DIRECTORY_FILE)).toBe(true);
    // What `npm pack` (and so an install from the package) would hold; no script runs.
    const res = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(res.status, res.stderr).toBe(0);
    const files = (JSON.parse(res.stdout) as Array<{ files: Array<{ path: string }> }>)[0]!.files.map(
      (f) => f.path,
    );
    expect(files).toContain('config/assets.json');
    expect(files).toContain('config/plans.json');
  });
});
