/**
 * The served OpenAPI document passes the two linters API tooling is most often
 * judged by, with no warning at all: Spectral's `spectral:oas`
 * ruleset and Redocly's `recommended` ruleset, both at their default
 * severities, on exactly the bytes GET /openapi.json answers.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../support/harness.js';

const run = promisify(execFile);
const BIN = resolve('node_modules/.bin');

/** The linters' own environment: no telemetry, no update check, no colour (nothing leaves the machine). */
const env = {
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  NO_COLOR: '1',
  REDOCLY_TELEMETRY: 'off',
  REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
};

interface SpectralResult {
  code: string;
  message: string;
  path: string[];
  severity: number;
}
interface RedoclyProblem {
  ruleId: string;
  message: string;
  severity: string;
  location: { pointer: string }[];
}

/** Both linters exit non-zero on findings; the JSON report on stdout is what counts. */
async function lint(file: string, args: string[]): Promise<string> {
  try {
    return (await run(file, args, { env, maxBuffer: 16 * 1024 * 1024, timeout: 60_000 })).stdout;
  } catch (err) {
    const out = (err as { stdout?: string }).stdout;
    if (out?.trim()) return out;
    throw err;
  }
}

describe('the served OpenAPI document under Spectral and Redocly', () => {
  let h: Harness;
  let dir: string;
  let documentPath: string;
  beforeAll(async () => {
    h = await startHarness({ name: 'sqlite' }, { seed: false });
    const res = await h.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    dir = mkdtempSync(join(tmpdir(), 'mds-openapi-lint-'));
    documentPath = join(dir, 'openapi.json');
    writeFileSync(documentPath, res.body);
    writeFileSync(join(dir, '.spectral.json'), JSON.stringify({ extends: ['spectral:oas'] }));
    writeFileSync(join(dir, 'redocly.yaml'), 'extends:\n  - recommended\n');
  });
  afterAll(async () => {
    await h?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('spectral:oas reports nothing', async () => {
    const out = await lint(join(BIN, 'spectral'), [
      'lint',
      '--ruleset',
      join(dir, '.spectral.json'),
      '--format',
      'json',
      '--quiet',
      documentPath,
    ]);
    // `--quiet` prints nothing at all when there is nothing to report.
    const results: SpectralResult[] = out.trim() === '' ? [] : JSON.parse(out);
    expect(results.map((r) => `${r.code} at ${r.path.join('.')}: ${r.message}`)).toEqual([]);
  });

  it('Redocly recommended reports nothing', async () => {
    const out = await lint(join(BIN, 'redocly'), [
      'lint',
      '--config',
      join(dir, 'redocly.yaml'),
      '--format',
      'json',
      documentPath,
    ]);
    const report = JSON.parse(out) as { totals: Record<string, number>; problems: RedoclyProblem[] };
    expect(
      report.problems.map((p) => `${p.ruleId} (${p.severity}) at ${p.location[0]?.pointer}: ${p.message}`),
    ).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  });
});
