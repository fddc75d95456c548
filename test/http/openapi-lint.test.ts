/**
 * The served OpenAPI document passes Redocly's linter with no warning at all,
 * on exactly the bytes GET /openapi.json answers, under redocly.yaml:
 * Redocly's `recommended` ruleset at its default severities, plus the rules of
 * Spectral's `spectral:oas` that `recommended` leaves off (info-contact,
 * operation-description, operation-tag-defined, operation-tags, no-unsafe-markdown…).
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
/** Redocly's `recommended` and the rules of Spectral's `spectral:oas` it leaves off (the file says which). */
const CONFIG = resolve('redocly.yaml');

/** The linters' own environment: no telemetry, no update check, no colour (nothing leaves the machine). */
const env = {
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  NO_COLOR: '1',
  REDOCLY_TELEMETRY: 'off',
  REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
};

interface RedoclyProblem {
  ruleId: string;
  message: string;
  severity: string;
  location: { pointer: string }[];
}

/** The linter exits non-zero on findings; the JSON report on stdout is what counts. */
async function lint(file: string, args: string[]): Promise<string> {
  try {
    return (await run(file, args, { env, maxBuffer: 16 * 1024 * 1024, timeout: 60_000 })).stdout;
  } catch (err) {
    const out = (err as { stdout?: string }).stdout;
    if (out?.trim()) return out;
    throw err;
  }
}

describe('the served OpenAPI document under Redocly', () => {
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
  });
  afterAll(async () => {
    await h?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('Redocly (redocly.yaml) reports nothing', async () => {
    const out = await lint(join(BIN, 'redocly'), [
      'lint',
      '--config',
      CONFIG,
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
