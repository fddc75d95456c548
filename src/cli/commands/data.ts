import type { ImportSummary } from '../../domain/types.js';
import type { ImportFormat } from '../../import/detect.js';
import type { ImportKind } from '../../import/records.js';
import { ImportError, type Progress, runImport } from '../../import/run.js';
import { seedSample } from '../../import/seed.js';
import { generateSample, SAMPLE_NOTICE } from '../../sample/generate.js';
import { describeStore, openStore } from '../../storage/open.js';
import type { Store } from '../../storage/store.js';
import type { Command } from '../main.js';
import { CliError } from '../output.js';

const KINDS: readonly ImportKind[] = ['assets', 'rates', 'gold'];
const FORMATS: readonly ImportFormat[] = ['ndjson', 'csv', 'json'];

export async function withStore<T>(url: string | undefined, fn: (store: Store) => Promise<T>): Promise<T> {
  const store = openStore(url);
  try {
    await store.migrate();
    return await fn(store);
  } finally {
    await store.close();
  }
}

function summaryLine(s: ImportSummary): string {
  return `${s.kind}: ${s.received} received, ${s.inserted} inserted, ${s.updated} updated, ${s.unchanged} unchanged`;
}

/** Progress on a terminal (stderr), for large imports; nothing when piped or with --json. */
export function terminalProgress(enabled: boolean): Progress | undefined {
  if (!enabled || !process.stderr.isTTY) return undefined;
  const started = performance.now();
  const at = () => `${((performance.now() - started) / 1000).toFixed(1)} s`;
  return {
    step: (text) => process.stderr.write(`\r\x1b[K[${at()}] ${text}\n`),
    count: (done, total) =>
      process.stderr.write(
        `\r\x1b[K[${at()}] ${done.toLocaleString('en')} / ${total.toLocaleString('en')} (${Math.floor((done / total) * 100)} %)`,
      ),
    done: () => process.stderr.write(`\r\x1b[K`),
  };
}

export const dataCommands: Command[] = [
  {
    name: ['migrate'],
    usage: 'migrate',
    async run({ out, databaseUrl }) {
      const store = openStore(databaseUrl);
      try {
        const applied = await store.migrate();
        out.result(
          { applied, store: describeStore(databaseUrl ?? store.dialect) },
          applied.length ? `applied: ${applied.join(', ')}` : 'already up to date',
        );
      } finally {
        await store.close();
      }
    },
  },
  {
    name: ['import'],
    usage: 'import assets|rates|gold <file|-> [--format ndjson|csv|json]',
    options: { format: { type: 'string' } },
    positionals: { min: 2, max: 2 },
    async run({ values, positionals, out, databaseUrl }) {
      const [kind, file] = positionals as [string, string];
      if (!KINDS.includes(kind as ImportKind))
        throw new CliError(`import: kind must be one of ${KINDS.join(', ')}`, 2);
      const format = values.format as string | undefined;
      if (format !== undefined && !FORMATS.includes(format as ImportFormat)) {
        throw new CliError(`--format: must be one of ${FORMATS.join(', ')}`, 2);
      }
      const started = performance.now();
      const summary = await runImport({
        kind: kind as ImportKind,
        file,
        format: format as ImportFormat | undefined,
        databaseUrl,
        progress: terminalProgress(!out.json),
      }).catch((err: unknown) => {
        throw err instanceof ImportError ? new CliError(err.message, 1, err.problems) : err;
      });
      const seconds = (performance.now() - started) / 1000;
      out.result(
        { ...summary, seconds: Math.round(seconds * 1000) / 1000 },
        `${summaryLine(summary)} in ${seconds.toFixed(2)} s`,
      );
    },
  },
  {
    name: ['seed', 'sample'],
    usage: 'seed sample [--end-date YYYY-MM-DD] [--days N]',
    options: { 'end-date': { type: 'string' }, days: { type: 'string' } },
    async run({ values, out, databaseUrl }) {
      const endDate = (values['end-date'] as string | undefined) ?? new Date().toISOString().slice(0, 10);
      const days = values.days === undefined ? undefined : Number(values.days);
      if (days !== undefined && !Number.isInteger(days))
        throw new CliError('--days: must be a whole number', 2);
      let sample: ReturnType<typeof generateSample>;
      try {
        sample = generateSample({ endDate, days });
      } catch (err) {
        throw new CliError((err as Error).message, 2);
      }
      const summaries = await withStore(databaseUrl, (store) => seedSample(store, sample));
      out.result({ notice: SAMPLE_NOTICE, endDate, summaries }, [
        `${SAMPLE_NOTICE}`,
        ...summaries.map(summaryLine),
      ]);
    },
  },
];
