/**
 * The reporter API's OpenAPI document (/report/openapi.json) passes the same
 * linter, under the same rules (redocly.yaml), as the public and admin ones,
 * with no warning at all; it describes /report/v1 only, and the admin
 * document, served by the same listener, none of it.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AdminHarness, startAdminHarness } from '../../support/admin.js';
import type { OpenApiDocument } from '../../support/openapi.js';

const run = promisify(execFile);
const BIN = resolve('node_modules/.bin');
/** Redocly's `recommended` and the rules of Spectral's `spectral:oas` it leaves off (the file says which). */
const CONFIG = resolve('redocly.yaml');
const env = {
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  NO_COLOR: '1',
  REDOCLY_TELEMETRY: 'off',
  REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
};

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

describe('the reporter OpenAPI document under Redocly', () => {
  let h: AdminHarness;
  let dir: string;
  let documentPath: string;
  let doc: OpenApiDocument;
  beforeAll(async () => {
    h = await startAdminHarness({ name: 'sqlite' });
    const res = await h.admin.inject({ method: 'GET', url: '/report/openapi.json' });
    expect(res.statusCode).toBe(200);
    doc = res.json();
    dir = mkdtempSync(join(tmpdir(), 'mds-report-openapi-lint-'));
    documentPath = join(dir, 'report-openapi.json');
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
    const report = JSON.parse(out) as {
      totals: Record<string, number>;
      problems: Array<{ ruleId: string; message: string; severity: string; location: { pointer: string }[] }>;
    };
    expect(
      report.problems.map((p) => `${p.ruleId} (${p.severity}) at ${p.location[0]?.pointer}: ${p.message}`),
    ).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  });

  it('describes /report/v1 alone, under the reporter token scheme; the admin document none of it', () => {
    expect(doc.security).toEqual([{ reporterToken: [] }]);
    expect(Object.keys(doc.paths).sort()).toEqual([
      '/report/v1/consensus',
      '/report/v1/me',
      '/report/v1/quotes',
      '/report/v1/quotes/batch',
    ]);
    expect(Object.keys(h.adminDoc.paths).filter((p) => p.startsWith('/report'))).toEqual([]);
  });
});
