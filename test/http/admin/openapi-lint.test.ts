/**
 * The admin listener's OpenAPI document (/admin/openapi.json) passes the same
 * linter, under the same rules (redocly.yaml), as the public one
 * (test/http/openapi-lint.test.ts), with no warning at all.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AdminHarness, startAdminHarness } from '../../support/admin.js';

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

describe('the admin OpenAPI document under Redocly', () => {
  let h: AdminHarness;
  let dir: string;
  let documentPath: string;
  beforeAll(async () => {
    h = await startAdminHarness({ name: 'sqlite' });
    const res = await h.admin.inject({ method: 'GET', url: '/admin/openapi.json' });
    expect(res.statusCode).toBe(200);
    dir = mkdtempSync(join(tmpdir(), 'mds-admin-openapi-lint-'));
    documentPath = join(dir, 'admin-openapi.json');
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

  it('names the scope of every operation, in x-scope and its description, under the admin token scheme', () => {
    expect(h.adminDoc.security).toEqual([{ adminToken: [] }]);
    for (const [path, operations] of Object.entries(h.adminDoc.paths)) {
      for (const [method, op] of Object.entries(operations)) {
        const scope = op['x-scope'];
        expect(typeof scope, `${method} ${path}`).toBe('string');
        expect(op.security, `${method} ${path}`).toBeUndefined();
        expect(String(op.description)).toContain(`Requires the scope \`${scope}\`.`);
      }
    }
  });
});
