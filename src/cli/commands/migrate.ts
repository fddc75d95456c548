import { describeStore, openStore } from '../../storage/open.js';
import type { Command } from '../command.js';

export const migrateCommand: Command = {
  name: ['migrate'],
  createsStore: true,
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
};
