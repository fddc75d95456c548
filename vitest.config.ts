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
    globalSetup: ['test/support/global-setup.ts'],
    reporters: ['default'],
  },
});
