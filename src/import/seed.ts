/** The sample data set (src/sample/generate.ts) written into a store: `mds seed sample`, the first run, the tests. */
import type { ImportSummary } from '../domain/types.js';
import type { generateSample } from '../sample/generate.js';
import type { ImportBatch, Store } from '../storage/store.js';

export async function seedSample(
  store: Store,
  sample: ReturnType<typeof generateSample>,
): Promise<ImportSummary[]> {
  const batches: ImportBatch[] = [
    { kind: 'assets', records: sample.assets },
    { kind: 'rates', records: sample.rates },
    { kind: 'gold', records: sample.gold },
  ];
  const out: ImportSummary[] = [];
  for (const b of batches) {
    // The counts only: the seed's import records (actor `system`) are in `mds imports list`.
    const { importId: _id, revisions: _revisions, dryRun: _dry, ...summary } = await store.imports.import(b);
    out.push(summary);
  }
  return out;
}
