import { seedSample } from '../../import/seed.js';
import { generateSample, SAMPLE_NOTICE } from '../../sample/generate.js';
import type { Command } from '../command.js';
import { CliError, summaryLine } from '../output.js';
import { withStore } from '../with-store.js';

export const seedCommand: Command = {
  name: ['seed', 'sample'],
  // A demo store from nothing, as init makes a production one (decisions 90).
  createsStore: true,
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
};
