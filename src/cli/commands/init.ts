/**
 * `mds init`: makes a store ready for its first import (decisions 54). It
 * applies the migrations and loads the shipped asset directory
 * (config/assets.json) into an empty directory, so that `mds import rates`
 * finds EUR, USD… on a store created for production. A directory that already
 * holds assets is left as it is: an operator's own entries are never
 * overwritten (`mds import assets` adds or changes entries).
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { PROJECT_ROOT } from '../../paths.js';
import { DEFAULT_DATABASE, describeStore, openStore } from '../../storage/open.js';
import type { Command } from '../command.js';
import { CliError } from '../output.js';

/** Shipped beside the code, found from the package root as config/plans.json is (src/paths.ts). */
export const ASSET_DIRECTORY_FILE = join(PROJECT_ROOT, 'config', 'assets.json');

const NEXT_STEPS = [
  'Next: import rates (and gold) with `mds import rates <file>` and `mds import gold <file>`,',
  'then give a customer access: `mds accounts create`, `mds grants create --account <id> --plan <plan>`',
  'and `mds keys create --grant <id>`.',
];

type AssetsOutcome = { loaded: number; file: string } | { loaded: 0; skipped: string };

export const initCommand: Command = {
  name: ['init'],
  createsStore: true,
  usage: 'init',
  async run({ out, databaseUrl }) {
    const file = relative(PROJECT_ROOT, ASSET_DIRECTORY_FILE);
    // Loaded here, as `mds import` loads them: the parsers and the compiled record rules.
    const { parseImport } = await import('../../import/parse.js');
    const { refusal, refusalLines } = await import('../../import/report.js');
    const store = openStore(databaseUrl);
    let applied: string[];
    let assets: AssetsOutcome;
    try {
      applied = await store.migrate();
      const existing = (await store.market.listAssets()).length;
      if (existing > 0) {
        assets = {
          loaded: 0,
          skipped: `the asset directory already has ${existing} ${existing === 1 ? 'entry' : 'entries'}`,
        };
      } else {
        let text: string;
        try {
          text = readFileSync(ASSET_DIRECTORY_FILE, 'utf8');
        } catch (err) {
          throw new CliError(`cannot read the shipped asset directory ${file}: ${(err as Error).message}`);
        }
        // The checks of `mds import assets`: a broken shipped file is refused whole, nothing written.
        const parsed = parseImport('assets', text, 'json');
        if (parsed.problems.length > 0) {
          const report = refusal(parsed, parsed.problems);
          throw new CliError(
            `the shipped asset directory ${file} is refused: ${parsed.problems.length} problem(s), nothing was written`,
            1,
            { text: refusalLines(report), json: { report } },
          );
        }
        const summary = await store.imports.import({ kind: 'assets', records: parsed.records });
        assets = { loaded: summary.received, file };
      }
    } finally {
      await store.close();
    }
    out.result(
      { store: describeStore(databaseUrl ?? DEFAULT_DATABASE), migrationsApplied: applied, assets },
      [
        applied.length ? `migrations applied: ${applied.join(', ')}` : 'migrations: already up to date',
        'skipped' in assets
          ? `asset directory left as it is: ${assets.skipped} (\`mds import assets <file>\` adds or changes entries)`
          : `asset directory: loaded ${assets.loaded} assets from ${assets.file}`,
        '',
        ...NEXT_STEPS,
      ],
    );
  },
};
