import { describe, it } from 'vitest';
import { backends } from '../support/backends.js';
import { importFlow } from './import-flow.js';

// A file of its own, so that the SQLite and PostgreSQL runs proceed in parallel.
const postgres = backends().find((b) => b.name === 'postgres');
if (postgres) importFlow(postgres);
else
  describe.skip('mds migrate and import on postgres (MDS_TEST_POSTGRES_URL not set)', () =>
    it('skipped', () => {}));
