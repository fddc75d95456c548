/**
 * How `mds` fails (decisions §11): errors on stderr with a non-zero exit code,
 * as one JSON document with --json; strict options; --help; import refusals
 * that name every bad record by line and write nothing.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, freshDatabase } from '../support/backends.js';
import { type CliResult, mds } from '../support/cli.js';
import { asListed } from '../support/import-problems.js';

const ASSETS = [
  '{"code":"EUR","symbol":"€","names":{"en":"Euro","fr":"Euro","ar":"يورو"},"type":"currency"}',
  '{"code":"USD","symbol":"$","names":{"en":"US dollar","fr":"Dollar américain","ar":"دولار أمريكي"},"type":"currency"}',
].join('\n');

/** A failure: nothing on stdout, a non-zero exit, and the stderr text. */
function failed(r: CliResult, status: number): string {
  expect(r.stdout).toBe('');
  expect(r.status).toBe(status);
  return r.stderr;
}

describe('mds errors and help', () => {
  let db: Database;
  let dir: string;
  const run = (args: string[], input?: string) => mds(args, { db: db.url, input });

  beforeAll(async () => {
    db = await freshDatabase('sqlite');
    dir = mkdtempSync(join(tmpdir(), 'mds-cli-errors-'));
    const r = await run(['import', 'assets', '-'], ASSETS);
    expect(r.status).toBe(0);
  });
  afterAll(async () => {
    await db?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('--help, -h and no arguments print the usage of every command on stdout', async () => {
    const [help, short, none, command] = await Promise.all([
      mds(['--help']),
      mds(['-h']),
      mds([]),
      mds(['keys', 'create', '--help']),
    ]);
    for (const r of [help, short, none]) {
      expect(r.status).toBe(0);
      expect(r.stderr).toBe('');
      expect(r.stdout).toMatch(/^usage: mds \[--db <url>\] \[--json\] <command> \[options\]/);
      for (const c of [
        'serve',
        'migrate',
        'import assets|rates|gold',
        'seed sample',
        'accounts create',
        'grants create',
        'grants update',
        'keys create',
        'keys revoke',
        'keys list',
        'usage GRANT_ID',
      ]) {
        expect(r.stdout).toContain(`  mds ${c}`);
      }
    }
    expect(command.status).toBe(0);
    expect(command.stdout).toBe(
      'usage: mds keys create --grant ID [--label L] [--environment live|test] [--scopes A,B] [--expires-at ISO]\n',
    );
  });

  it('an unknown command is an error on stderr, exit 2', async () => {
    const r = await mds(['frobnicate']);
    expect(failed(r, 2)).toMatch(/^mds: unknown command: frobnicate\n/);
  });

  it('an unknown option is an error, not a no-op; with --json the error is JSON on stderr', async () => {
    const [text, json] = await Promise.all([
      run(['accounts', 'create', '--nmae', 'typo']),
      run(['accounts', 'create', '--nmae', 'typo', '--json']),
    ]);
    expect(failed(text, 2)).toMatch(/^mds: Unknown option '--nmae'/);
    expect(text.stderr.trim().split('\n')).toHaveLength(1);
    failed(json, 2);
    expect(json.stderr.trim().split('\n')).toHaveLength(1);
    expect(asListed(json.errorJson()).error.message).toMatch(/^Unknown option '--nmae'/);
    expect(Object.keys(asListed(json.errorJson()))).toEqual(['error']);
  });

  it('the wrong number of arguments prints the command usage, exit 2', async () => {
    const [tooFew, tooMany, extra] = await Promise.all([
      run(['import', 'assets']),
      run(['import', 'assets', 'a.ndjson', 'b.ndjson']),
      run(['migrate', 'now']),
    ]);
    const importUsage =
      'mds: usage: mds import assets|rates|gold <file|-> [--format ndjson|csv|json] [--dry-run] [--max-change <percent>] [--accept-outliers] [--reinstate] [--delimiter ,|;|tab] [--timezone <IANA zone>] [--date-order dmy|mdy] [--priority low|normal]\n';
    expect(failed(tooFew, 2)).toBe(importUsage);
    expect(failed(tooMany, 2)).toBe(importUsage);
    expect(failed(extra, 2)).toBe('mds: usage: mds migrate\n');
  });

  it('unknown kind, unknown format and a missing file are clear errors', async () => {
    const missing = join(dir, 'nope.ndjson');
    const [kind, format, file, fileJson] = await Promise.all([
      run(['import', 'prices', '-'], ASSETS),
      run(['import', 'assets', '-', '--format', 'xml'], ASSETS),
      run(['import', 'rates', missing]),
      run(['import', 'rates', missing, '--json']),
    ]);
    expect(failed(kind, 2)).toBe('mds: import: kind must be one of assets, rates, gold\n');
    expect(failed(format, 2)).toBe('mds: --format: must be one of ndjson, csv, json\n');
    expect(failed(file, 1)).toMatch(new RegExp(`^mds: cannot read ${missing}: ENOENT`));
    failed(fileJson, 1);
    expect(asListed(fileJson.errorJson()).error.message).toMatch(
      new RegExp(`^cannot read ${missing}: ENOENT`),
    );
  });

  it('reports every bad record of a CSV file with its line number and writes nothing', async () => {
    const lines = [
      'currency,source,buy,sell,updatedAt',
      'EUR,parallel,250,252,2025-04-01T09:00:00.000Z',
      'USD,black,230,232,2025-04-01T09:00:00.000Z',
      'USD,parallel,230,232,2025-04-01T09:00:00.000Z',
      'EUR,official,150,151,yesterday',
      'USD,official,134,135',
    ];
    const path = join(dir, 'rates.csv');
    writeFileSync(path, `${lines.join('\n')}\n`);
    const [text, json] = await Promise.all([
      run(['import', 'rates', path]),
      run(['import', 'rates', path, '--json']),
    ]);
    expect(failed(text, 1)).toBe(
      [
        'mds: import refused: 3 problem(s), nothing was written',
        '  line 3: source: "black" must be one of parallel, official, transfer',
        '  line 5: updatedAt: "yesterday" must be an ISO 8601 timestamp with a time zone, e.g. 2026-11-21T09:00:00.000Z',
        '  line 6: expected 5 fields, found 4',
        '',
      ].join('\n'),
    );
    failed(json, 1);
    expect(asListed(json.errorJson()).error.problems.map((p: { line: number }) => p.line)).toEqual([3, 5, 6]);
    // Nothing was written: the two good records import as new.
    const good = [lines[0], lines[1], lines[3]].join('\n');
    const ok = await run(['import', 'rates', '-', '--json'], good);
    expect(ok.status).toBe(0);
    expect(ok.json()).toMatchObject({ kind: 'rates', received: 2, inserted: 2, updated: 0, unchanged: 0 });
  });

  it('reports the line of a bad element in a JSON array', async () => {
    const text = `[
  {"purity": "24K", "buy": "21000", "sell": "21500", "updatedAt": "2025-04-01T09:30:00.000Z"},
  {"purity": "22K", "buy": "19000", "sell": "19500", "updatedAt": "2025-04-01T09:30:00.000Z"},
  {"purity": "18K", "buy": "15750", "sell": "16100", "updatedAt": "2025-04-01T09:30:00.000Z", "note": "x"}
]`;
    const r = await run(['import', 'gold', '-', '--json'], text);
    failed(r, 1);
    expect(asListed(r.errorJson())).toEqual({
      error: {
        message: 'import refused: 2 problem(s), nothing was written',
        problems: [
          { line: 3, message: 'purity: "22K" must be one of 18K, 21K, 24K' },
          { line: 4, message: 'unknown field "note"' },
        ],
      },
    });
  });

  it('reports an unknown currency together with the other bad records, in line order', async () => {
    const ndjson = [
      '{"currency":"JPY","source":"parallel","buy":"1.5","sell":"1.6","updatedAt":"2025-04-02T09:00:00.000Z"}',
      '{"currency":"EUR","source":"parallel","buy":"-1","sell":"252","updatedAt":"2025-04-02T09:00:00.000Z"}',
      '{"currency":"USD","source":"parallel","buy":"230","sell":"232","updatedAt":"2025-04-02T09:00:00.000Z"}',
      '{"currency":"CNY","source":"official","buy":"18","sell":"19","updatedAt":"2025-04-02T10:00:00.000Z"}',
    ].join('\n');
    const r = await run(['import', 'rates', '-'], ndjson);
    expect(failed(r, 1)).toBe(
      [
        'mds: import refused: 3 problem(s), nothing was written',
        '  line 1: currency: JPY is not in the asset directory (import it with `mds import assets` first)',
        '  line 2: buy: "-1" must be a positive decimal number with at most 6 decimal places',
        '  line 4: currency: CNY is not in the asset directory (import it with `mds import assets` first)',
        '',
      ].join('\n'),
    );
  });

  it('an input without a header row or with the wrong columns is refused at line 1', async () => {
    const [empty, columns] = await Promise.all([
      run(['import', 'rates', '-', '--json'], ''),
      run(
        ['import', 'gold', '-', '--format', 'csv', '--json'],
        'purity,buy,price,updatedAt\n24K,1,2,2025-04-01T09:30:00Z\n',
      ),
    ]);
    failed(empty, 1);
    expect(asListed(empty.errorJson()).error.problems).toEqual([
      { line: 1, message: 'missing header row (expected currency,source,buy,sell,updatedAt)' },
    ]);
    failed(columns, 1);
    expect(asListed(columns.errorJson()).error.problems).toEqual([
      {
        line: 1,
        message: 'header: unknown column "price"; missing column "sell" (expected purity,buy,sell,updatedAt)',
      },
    ]);
  });

  it('administrative errors go to stderr with a non-zero exit, as JSON with --json', async () => {
    const [grant, grantJson, key] = await Promise.all([
      run(['usage', 'grt_missing']),
      run(['usage', 'grt_missing', '--json']),
      run(['keys', 'revoke', 'zzzzzzzzzzzz', '--json']),
    ]);
    expect(failed(grant, 2)).toBe('mds: no grant grt_missing\n');
    failed(grantJson, 2);
    expect(asListed(grantJson.errorJson())).toEqual({ error: { message: 'no grant grt_missing' } });
    failed(key, 2);
    expect(asListed(key.errorJson())).toEqual({ error: { message: 'no key zzzzzzzzzzzz' } });
  });
});
