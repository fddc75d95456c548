/**
 * `mds import` throughput: N generated rate observations as NDJSON (40
 * currencies of the asset directory × 3 sources × hourly timestamps, every key
 * unique), timed end to end as the operator runs it:
 * `node dist/mds.mjs import rates <file> --db <url>`.
 */
import { execFile } from 'node:child_process';
import { createWriteStream, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Asset } from '../src/domain/types.js';
import { NODE_FLAGS } from '../src/runtime/heap.js';
import type { generateSample } from '../src/sample/generate.js';
import { openStore } from '../src/storage/open.js';
import { benchEnv, CLI } from './service.js';
import { freshSchema } from './setup.js';

const run = promisify(execFile);
const HOUR = 3_600_000;
const SOURCES = ['parallel', 'official', 'transfer'] as const;

/** Currencies added to the sample's directory so that the import spans 40 of them. */
const EXTRA: ReadonlyArray<[code: string, symbol: string, en: string, fr: string, ar: string]> = [
  ['BRL', 'R$', 'Brazilian Real', 'Réal brésilien', 'ريال برازيلي'],
  ['INR', '₹', 'Indian Rupee', 'Roupie indienne', 'روبية هندية'],
  ['KRW', '₩', 'South Korean Won', 'Won sud-coréen', 'وون كوري'],
  ['MXN', 'MX$', 'Mexican Peso', 'Peso mexicain', 'بيزو مكسيكي'],
  ['ZAR', 'R', 'South African Rand', 'Rand sud-africain', 'راند'],
  ['SGD', 'S$', 'Singapore Dollar', 'Dollar de Singapour', 'دولار سنغافوري'],
  ['HKD', 'HK$', 'Hong Kong Dollar', 'Dollar de Hong Kong', 'دولار هونغ كونغ'],
  ['NZD', 'NZ$', 'New Zealand Dollar', 'Dollar néo-zélandais', 'دولار نيوزيلندي'],
  ['PLN', 'zł', 'Polish Zloty', 'Zloty polonais', 'زلوتي بولندي'],
  ['CZK', 'Kč', 'Czech Koruna', 'Couronne tchèque', 'كرونة تشيكية'],
  ['HUF', 'Ft', 'Hungarian Forint', 'Forint hongrois', 'فورنت'],
  ['MYR', 'RM', 'Malaysian Ringgit', 'Ringgit malais', 'رينغيت'],
  ['IDR', 'Rp', 'Indonesian Rupiah', 'Roupie indonésienne', 'روبية إندونيسية'],
  ['THB', '฿', 'Thai Baht', 'Baht thaïlandais', 'بات تايلاندي'],
  ['PHP', '₱', 'Philippine Peso', 'Peso philippin', 'بيزو فلبيني'],
  ['ILS', '₪', 'Israeli New Shekel', 'Shekel', 'شيكل'],
  ['NGN', '₦', 'Nigerian Naira', 'Naira nigérian', 'نايرا نيجيري'],
  ['VND', '₫', 'Vietnamese Dong', 'Dong vietnamien', 'دونغ فيتنامي'],
  ['COP', 'COL$', 'Colombian Peso', 'Peso colombien', 'بيزو كولومبي'],
];

export const IMPORT_CURRENCIES = 40;

/** The directory for the import: the sample's currencies plus EXTRA, 40 in all. */
export function importAssets(sample: ReturnType<typeof generateSample>): Asset[] {
  const own = sample.assets.filter((a) => a.type === 'currency');
  const extra: Asset[] = EXTRA.map(([code, symbol, en, fr, ar]) => ({
    code,
    symbol,
    type: 'currency',
    names: { en, fr, ar },
  }));
  return [...own, ...extra].slice(0, IMPORT_CURRENCIES);
}

/** Writes `count` observations, one series (currency × source) after another, hourly, ending `end`. */
export async function writeImportFile(
  file: string,
  count: number,
  currencies: string[],
  end: number,
): Promise<void> {
  const series = currencies.length * SOURCES.length;
  const perSeries = Math.ceil(count / series);
  const out = createWriteStream(file);
  let written = 0;
  let chunk = '';
  const flush = async () => {
    if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
    chunk = '';
  };
  outer: for (let c = 0; c < currencies.length; c++) {
    const level = 1 + ((c * 37) % 200) + c / 7;
    for (const source of SOURCES) {
      const premium = source === 'parallel' ? 1.7 : source === 'transfer' ? 1.05 : 1;
      for (let i = perSeries - 1; i >= 0; i--) {
        if (written === count) break outer;
        const t = new Date(end - i * HOUR).toISOString();
        const buy = level * premium * (1 + ((i * 7919) % 1000) / 50_000);
        const sell = buy * 1.012;
        chunk += `{"currency":"${currencies[c]}","source":"${source}","buy":"${buy.toFixed(4)}","sell":"${sell.toFixed(4)}","updatedAt":"${t}"}\n`;
        written++;
        if (chunk.length > 1_000_000) await flush();
      }
    }
  }
  await flush();
  await new Promise<void>((resolve, reject) =>
    out.end((err?: Error | null) => (err ? reject(err) : resolve())),
  );
}

export interface ImportResult {
  records: number;
  /** Wall time of the CLI process, start to exit. */
  seconds: number;
  perSecond: number;
  /** The CLI's own timing (from opening the file to the end of the write: process start-up and exit excluded). */
  cliSeconds?: number;
  inserted: number;
  /** Why the import did not complete (the rate is then not a figure). */
  error?: string;
}

/** Migrates the target and loads the asset directory (not timed), then times the CLI import. */
export async function timeImport(
  file: string,
  dbUrl: string,
  assets: Asset[],
  records: number,
  cpus: string | undefined,
): Promise<ImportResult> {
  const store = openStore(dbUrl);
  try {
    await store.migrate();
    await store.import({ kind: 'assets', records: assets });
  } finally {
    await store.close();
  }
  const args = [...NODE_FLAGS, CLI, 'import', 'rates', file, '--db', dbUrl, '--json'];
  const [command, argv] = cpus
    ? ['taskset', ['-c', cpus, process.execPath, ...args]]
    : [process.execPath, args];
  const started = performance.now();
  try {
    const { stdout } = await run(command, argv as string[], { env: benchEnv(), maxBuffer: 10_000_000 });
    const seconds = Math.round(performance.now() - started) / 1000;
    const summary = JSON.parse(stdout) as { inserted?: number; seconds?: number };
    const inserted = summary.inserted ?? 0;
    const result = {
      records,
      seconds,
      perSecond: Math.round(records / seconds),
      cliSeconds: summary.seconds,
      inserted,
    };
    return inserted === records
      ? result
      : { ...result, perSecond: Number.NaN, error: `${inserted} of ${records} observations inserted` };
  } catch (err) {
    const seconds = Math.round(performance.now() - started) / 1000;
    const e = err as { stderr?: string; message: string };
    let error = e.message.split('\n')[0] ?? 'failed';
    try {
      error = (JSON.parse(e.stderr ?? '') as { error: { message: string } }).error.message;
    } catch {
      // not the CLI's JSON error
    }
    return { records, seconds, perSecond: Number.NaN, inserted: 0, error: `the command failed: ${error}` };
  }
}

export interface ImportReport {
  records: number;
  note?: string;
  sqlite?: ImportResult;
  postgres?: ImportResult;
  skipped?: string;
}

/** Generates the file once, then imports it into a fresh SQLite file and, when given, a fresh PostgreSQL schema. */
export async function measureImports(o: {
  records: number;
  quick: boolean;
  sample: ReturnType<typeof generateSample>;
  endDate: string;
  dir: string;
  postgresUrl?: string;
  cpus?: string;
  log: (line: string) => void;
}): Promise<ImportReport> {
  const report: ImportReport = { records: o.records };
  if (o.records === 0) return { ...report, skipped: 'disabled (--import-records 0)' };
  if (o.records !== 1_000_000) {
    report.note = `Import measured on ${o.records.toLocaleString('en')} observations, not 1,000,000${o.quick ? ' (quick mode)' : ''}; the rate is per second either way.`;
  }
  const assets = importAssets(o.sample);
  const file = join(o.dir, 'rates.ndjson');
  const codes = assets.map((a) => a.code);
  await writeImportFile(file, o.records, codes, Date.parse(`${o.endDate}T00:00:00Z`));
  try {
    o.log(
      `bench: import of ${o.records.toLocaleString('en')} observations (${codes.length} currencies) into SQLite`,
    );
    report.sqlite = await timeImport(file, join(o.dir, 'import.sqlite'), assets, o.records, o.cpus);
    if (o.postgresUrl) {
      o.log('bench: … into PostgreSQL');
      const schema = await freshSchema(o.postgresUrl, 'import');
      try {
        report.postgres = await timeImport(file, schema.url, assets, o.records, o.cpus);
      } finally {
        await schema.drop();
      }
    }
  } finally {
    rmSync(file, { force: true });
  }
  return report;
}
