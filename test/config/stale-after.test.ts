/**
 * MDS_STALE_AFTER (docs/decisions.md 53): per family, the age past which its
 * newest observation is stale in /status and the freshness gauges. A list of
 * family=duration pairs over the defaults; a bad list is refused by
 * `mds serve` with the other bad values, one line naming the variable and
 * what to write.
 */
import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  readConfig,
  ServeEnvironment,
  STALE_FAMILIES,
  staleAfterSeconds,
} from '../../src/config.js';
import { SOURCES } from '../../src/domain/types.js';
import { mds } from '../support/cli.js';

const H = 3_600;
const MESSAGE =
  'MDS_STALE_AFTER: must be comma-separated family=duration pairs (families parallel, official, transfer, gold, ' +
  'each at most once; durations a whole number from 1 to 999999 followed by s, m, h or d), e.g. parallel=36h,gold=2d; ' +
  'a family this service does not publish is left out of MDS_PUBLISHED_FAMILIES instead';

function problems(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
  return [];
}

describe('MDS_STALE_AFTER', () => {
  it('names the three rate sources and gold, and is declared with the serve variables', () => {
    expect([...STALE_FAMILIES]).toEqual([...SOURCES, 'gold']);
    const schema = ServeEnvironment.properties.MDS_STALE_AFTER as { default: string };
    expect(schema.default).toBe('parallel=36h,official=96h,transfer=48h,gold=48h');
  });

  it('defaults to 36 h parallel, 96 h official, 48 h transfer and gold', () => {
    expect(readConfig({}).staleAfter).toEqual(staleAfterSeconds());
    expect(readConfig({ MDS_STALE_AFTER: '' }).staleAfter).toEqual(staleAfterSeconds());
    expect(staleAfterSeconds()).toEqual({
      parallel: 36 * H,
      official: 96 * H,
      transfer: 48 * H,
      gold: 48 * H,
    });
  });

  it('overrides only the families it names, in s, m, h or d', () => {
    expect(readConfig({ MDS_STALE_AFTER: 'parallel=2h' }).staleAfter).toEqual({
      parallel: 2 * H,
      official: 96 * H,
      transfer: 48 * H,
      gold: 48 * H,
    });
    expect(
      readConfig({ MDS_STALE_AFTER: ' gold=3d , transfer=90m,official=45s,parallel=1h ' }).staleAfter,
    ).toEqual({ parallel: H, official: 45, transfer: 90 * 60, gold: 3 * 24 * H });
  });

  it('refuses an unknown family, a bad or zero duration, a repeated family, one line each', () => {
    for (const bad of [
      'silver=2h',
      'Parallel=2h',
      'parallel',
      'parallel=',
      'parallel=36',
      'parallel=1.5h',
      'parallel=2w',
      'parallel=-1h',
      'parallel=0h',
      'parallel=0s',
      'parallel=036h',
      'parallel=1000000h',
      'parallel=36h,',
      'parallel=36h;gold=2d',
      'parallel=36h,parallel=40h',
      'gold=1d,official=4d,gold=2d',
      // Not watching a family is MDS_PUBLISHED_FAMILIES's to say (docs/decisions.md 99): the message names it.
      'transfer=off',
    ])
      expect(
        problems(() => readConfig({ MDS_STALE_AFTER: bad })),
        bad,
      ).toEqual([MESSAGE]);
  });

  it('is named with every other bad value at once', () => {
    expect(
      problems(() => readConfig({ MDS_DRAIN_MS: 'soon', MDS_STALE_AFTER: 'gold=0d', MDS_LOG_LEVEL: 'loud' })),
    ).toEqual([
      'MDS_LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent',
      'MDS_DRAIN_MS: must be 0 to 999999 (ms)',
      MESSAGE,
    ]);
  });

  it('mds serve refuses a bad value before it starts, exit code 2', async () => {
    const res = await mds(['serve', '--port', '0'], { env: { MDS_STALE_AFTER: 'parallel=36h,silver=2d' } });
    expect(res.status).toBe(2);
    expect(res.stdout).toBe('');
    expect(res.stderr).toBe(`mds: ${MESSAGE}\n`);
  });
});
