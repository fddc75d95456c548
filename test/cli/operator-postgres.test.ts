/**
 * `mds` operator commands and the audit log (see operator-flow.ts) on
 * PostgreSQL; vitest.config.ts leaves it out when MDS_TEST_POSTGRES_URL is not set.
 */
import { backends } from '../support/backends.js';
import { operatorFlow } from './operator-flow.js';

const postgres = backends().find((b) => b.name === 'postgres');
if (!postgres)
  throw new Error('MDS_TEST_POSTGRES_URL is not set: vitest.config.ts should have left this file out');
operatorFlow(postgres);
