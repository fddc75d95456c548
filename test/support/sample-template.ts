/**
 * The sample data set (about 45k rows) seeded once per run into a SQLite file
 * (global-setup.ts), which each SQLite harness copies instead of seeding its
 * own (harness.ts): seeding took a second or more per harness start. No
 * `vitest` import at run time: the global setup runs outside the workers.
 */
import type {} from 'vitest';
import { seedSample } from '../../src/import/seed.js';
import { generateSample } from '../../src/sample/generate.js';
import { openStore } from '../../src/storage/open.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The seeded SQLite file and the last day of its sample (global-setup.ts). */
    sampleTemplate: { path: string; endDate: string };
  }
}

/** Migrates and seeds the SQLite file at `path` with the sample ending on `endDate`, and closes it. */
export async function writeSampleTemplate(path: string, endDate: string): Promise<void> {
  const store = openStore(path);
  try {
    await store.migrate();
    await seedSample(store, generateSample({ endDate }));
  } finally {
    await store.close();
  }
}
