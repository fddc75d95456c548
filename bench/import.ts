/**
 * `mds import` throughput: N generated rate observations as NDJSON (40
 * currencies of the asset directory × 3 sources × hourly timestamps, every key
 * unique), timed end to end as the operator runs it:
 * `node dist/mds.mjs import rates <file> --db <url>`.
 */
import { execFile } from 'node:child_process';
import { closeSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Asset } from '../src/domain/types.js';
import { NODE_FLAGS } from '../src/runtime/heap.js';
import type { SampleData } from '../src/sample/generate.js';
import { openStore } from '../src/storage/open.js';
import { benchEnv, CLI } from './service.js';
import { freshSchema } from './setup.js';

const run = promisify(execFile);
const HOUR = 3_600_000;
const SOURCES = ['parallel', 'official', 'transfer'] as const;

/** Currencies added to the sample's directory so that the import spans 40 of them. */
const EXTRA = 'BRL INR KRW MXN ZAR SGD HKD NZD PLN CZK HUF MYR IDR THB PHP ILS NGN VND COP'.split(' ');

/** The directory for the import: the sample's currencies plus EXTRA, 40 in all. */
export function importAssets(sample: SampleData): Asset[] {
  const own = sample.assets.filter((a) => a.type === 'currency');
  const names = (code: string) => ({ en: code, fr: code, ar: code });
  const extra: Asset[] = EXTRA.map((code) => ({ code, symbol: code, type: 'currency', names: names(code) }));
  return [...own, ...extra].slice(0, 40);
}

/** Writes `count` observations, one series (currency × source) after another, hourly, ending `end`. */
export async function writeImportFile(file: string, count: number, currencies: string[], end: number) {
  const perSeries = Math.ceil(count / (currencies.length * SOURCES.length));
  const out = openSync(file, 'w');
  let [written, chunk] = [0, ''];
  for (const [c, code] of currencies.entries())
    for (const source of SOURCES) {
      const level =
        (1 + ((c * 37) % 200) + c / 7) * (source === 'parallel' ? 1.7 : source === 'transfer' ? 1.05 : 1);
      for (let i = perSeries - 1; i >= 0 && written < count; i--, written++) {
        const buy = level * (1 + ((i * 7919) % 1000) / 50_000);
        const t = new Date(end - i * HOUR).toISOString();
        chunk += `{"currency":"${code}","source":"${source}","buy":"${buy.toFixed(4)}","sell":"${(buy * 1.012).toFixed(4)}","updatedAt":"${t}"}\n`;
        if (chunk.length < 1_000_000) continue;
        writeSync(out, chunk);
        chunk = '';
      }
    }
  writeSync(out, chunk);
  closeSync(out);
}

export interface ImportResult {
  records: number;
  /** Wall time of the CLI process, start to exit. */
  seconds: number;
  perSecond: number;
  /** Why the import did not insert every record (the rate is then no figure). */
  error?: string;
}

/** `mds import rates <file> --db <url> --json` pinned to `cpus`, timed from spawn to exit. */
export async function runImport(
  file: string,
  url: string,
  records: number,
  cpus?: string,
  /** Run under `nice -n <niceness>` (`mds import` keeps a niceness above its own 10). */
  niceness?: number,
): Promise<ImportResult> {
  const pin = cpus ? ['taskset', '-c', cpus] : [];
  const nice = niceness === undefined ? [] : ['nice', '-n', String(niceness)];
  const [command, ...args] = [
    ...pin,
    ...nice,
    process.execPath,
    ...NODE_FLAGS,
    CLI,
    'import',
    'rates',
    file,
    '--db',
    url,
    '--json',
  ];
  const started = performance.now();
  const r: { stdout?: string; stderr?: string; code?: number } = await run(command!, args, {
    env: benchEnv(),
  }).catch((e) => e);
  const seconds = Math.round(performance.now() - started) / 1000;
  const inserted = (JSON.parse(r.stdout || '{}') as { inserted?: number }).inserted ?? 0;
  const result = { records, seconds, perSecond: Math.round(records / seconds) };
  if (!r.code && inserted === records) return result;
  const error = `exit ${r.code ?? 0}, ${inserted} of ${records} inserted${r.stderr ? `: ${r.stderr.slice(0, 300)}` : ''}`;
  return { ...result, perSecond: Number.NaN, error };
}

export type ImportReport = { records: number; sqlite?: ImportResult; postgres?: ImportResult };

/**
 * The file written once, imported into a fresh SQLite file and, when given, a
 * fresh PostgreSQL schema, each migrated and holding the asset directory only.
 */
export async function measureImports(o: {
  records: number;
  sample: SampleData;
  endDate: string;
  dir: string;
  postgresUrl?: string;
  cpus?: string;
  log: (line: string) => void;
}): Promise<ImportReport> {
  const assets = importAssets(o.sample);
  const file = join(o.dir, 'rates.ndjson');
  await writeImportFile(
    file,
    o.records,
    assets.map((a) => a.code),
    Date.parse(`${o.endDate}T00:00:00Z`),
  );
  const report: ImportReport = { records: o.records };
  for (const [backend, url] of [
    ['sqlite', join(o.dir, 'import.sqlite')],
    ['postgres', o.postgresUrl],
  ] as const) {
    if (!url) continue;
    o.log(`bench: import of ${o.records.toLocaleString('en')} observations, ${backend}`);
    const to = backend === 'sqlite' ? url : await freshSchema(url, 'import');
    const store = openStore(to);
    await store.migrate().then(() => store.imports.import({ kind: 'assets', records: assets }));
    await store.close();
    report[backend] = await runImport(file, to, o.records, o.cpus);
  }
  return report;
}
