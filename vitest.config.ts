import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Files that run one backend's suite only (test/cli/*-postgres.test.ts) are
 * left out when that backend is not configured, rather than holding a skipped
 * placeholder test; global-setup.ts says which backends ran.
 */
const postgresOnly = process.env.MDS_TEST_POSTGRES_URL ? [] : ['test/**/*-postgres.test.ts'];

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: [...configDefaults.exclude, ...postgresOnly],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two files at a time even on two cores (Vitest's default there is one):
    // most files spend their time waiting on child processes, PostgreSQL and
    // Redis. Files are isolated from each other: temporary directories, a
    // PostgreSQL schema and a Redis prefix per file (test/support/backends.ts),
    // servers and Redis Cluster nodes on free ports.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    minWorkers: 1,
    globalSetup: ['test/support/global-setup.ts'],
    reporters: ['default'],
  },
});
