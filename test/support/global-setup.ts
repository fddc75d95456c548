/** Says, once per run, which backends the contract suites run against. */
import { POSTGRES_URL, REDIS_URL } from './backends.js';

export default function setup(): void {
  const ran = ['sqlite+memory-limiter'];
  if (POSTGRES_URL) ran.push(REDIS_URL ? 'postgres+redis-limiter' : 'postgres+memory-limiter');
  const skipped = POSTGRES_URL ? '' : ' (PostgreSQL/Redis suites skipped: MDS_TEST_POSTGRES_URL not set)';
  process.stdout.write(`\nbackends under test: ${ran.join(', ')}${skipped}\n\n`);
}
