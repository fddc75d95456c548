import { FORMATS, type ImportFormat } from '../../import/detect.js';
import type { ImportKind } from '../../import/records.js';
import type { Command } from '../command.js';
import { CliError, summaryLine } from '../output.js';
import { terminalProgress } from '../progress.js';

const KINDS: readonly ImportKind[] = ['assets', 'rates', 'gold'];

export const importCommand: Command = {
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
    // Loaded here: the parsers and the compiled record rules are for this command only.
    const { ImportError, runImport } = await import('../../import/run.js');
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
};
