/**
 * `mds import official-boa` (see import-workbook-flow.ts) on PostgreSQL. A
 * file of its own, so that the SQLite and PostgreSQL runs proceed in parallel;
 * vitest.config.ts leaves it out when MDS_TEST_POSTGRES_URL is not set.
 */
import { backends } from '../support/backends.js';
import { workbookFlow } from './import-workbook-flow.js';

const postgres = backends().find((b) => b.name === 'postgres');
if (!postgres)
  throw new Error('MDS_TEST_POSTGRES_URL is not set: vitest.config.ts should have left this file out');
workbookFlow(postgres);
