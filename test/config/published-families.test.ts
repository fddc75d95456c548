/**
 * MDS_PUBLISHED_FAMILIES (docs/decisions.md 99): the families an operator
 * publishes, all four by default; a bad list is refused by `mds serve` with
 * the other bad values, one line naming the variable and what to write. What
 * it changes is tested through HTTP (test/observability/published-families.test.ts)
 * and the webhooks (test/webhooks/events.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, readConfig, ServeEnvironment } from '../../src/config.js';
import { mds } from '../support/cli.js';

const MESSAGE =
  'MDS_PUBLISHED_FAMILIES: must be comma-separated families among parallel, official, transfer, gold, ' +
  'each at most once, e.g. parallel,official,gold';

function problems(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
  return [];
}

describe('MDS_PUBLISHED_FAMILIES', () => {
  it('defaults to every family, declared with the serve variables', () => {
    const schema = ServeEnvironment.properties.MDS_PUBLISHED_FAMILIES as { default: string };
    expect(schema.default).toBe('parallel,official,transfer,gold');
    expect(readConfig({}).publishedFamilies).toEqual(['parallel', 'official', 'transfer', 'gold']);
    expect(readConfig({ MDS_PUBLISHED_FAMILIES: '' }).publishedFamilies).toEqual([
      'parallel',
      'official',
      'transfer',
      'gold',
    ]);
  });

  it('takes a subset in any order, spaces allowed', () => {
    expect(readConfig({ MDS_PUBLISHED_FAMILIES: 'gold, parallel,official' }).publishedFamilies).toEqual([
      'parallel',
      'official',
      'gold',
    ]);
    expect(readConfig({ MDS_PUBLISHED_FAMILIES: 'parallel' }).publishedFamilies).toEqual(['parallel']);
  });

  it('refuses an unknown family, a repeated one, an empty item', () => {
    for (const bad of [
      'silver',
      'Parallel',
      'parallel,',
      ',gold',
      'parallel,,gold',
      'gold,gold',
      'none',
      'transfer=off',
    ])
      expect(
        problems(() => readConfig({ MDS_PUBLISHED_FAMILIES: bad })),
        bad,
      ).toEqual([MESSAGE]);
  });

  it('mds serve refuses a bad value before it starts, exit code 2', async () => {
    const res = await mds(['serve', '--port', '0'], { env: { MDS_PUBLISHED_FAMILIES: 'parallel,silver' } });
    expect(res.status).toBe(2);
    expect(res.stdout).toBe('');
    expect(res.stderr).toBe(`mds: ${MESSAGE}\n`);
  });
});
