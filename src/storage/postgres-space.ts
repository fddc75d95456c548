/**
 * The probe of a full PostgreSQL store (space.ts): the usage commit's two
 * inserts, a batch id and a month row for an existing grant, rolled back.
 * PostgreSQL extends a table when the row is inserted, not at commit, so a
 * disk with no room fails here with 53100 as the real commit would; rolled
 * back, the probe leaves nothing behind.
 */
import type { Pool } from 'pg';

const BATCH = `insert into usage_batches (id, committed_at) values ('mds-space-probe', 0)`;
const MONTH = `insert into usage (grant_id, period, used, updated_at)
  select id, 'mds-space-probe', 0, 0 from grants limit 1`;

export async function probePostgresSpace(pool: Pool): Promise<void> {
  const client = await pool.connect();
  let failed: unknown;
  try {
    await client.query('begin');
    await client.query(BATCH);
    await client.query(MONTH);
  } catch (err) {
    failed = err;
  } finally {
    // A client whose rollback fails is not given back to the pool for reuse.
    const rolledBack = await client.query('rollback').then(
      () => true,
      () => false,
    );
    client.release(!rolledBack);
  }
  if (failed !== undefined) throw failed;
}
