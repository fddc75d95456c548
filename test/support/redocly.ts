/**
 * Redocly's linter over the exact bytes a listener serves as its OpenAPI
 * document, under redocly.yaml: Redocly's `recommended` ruleset at its default
 * severities, plus the rules of Spectral's `spectral:oas` that `recommended`
 * leaves off (the file says which). Used by test/http/openapi-lint.test.ts,
 * test/http/admin/openapi-lint.test.ts and test/http/report/openapi-lint.test.ts.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const REDOCLY = resolve('node_modules/.bin/redocly');
const CONFIG = resolve('redocly.yaml');

/** The linter's own environment: no telemetry, no update check, no colour (nothing leaves the machine). */
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

/** What the linter found: each problem as one line (rule, severity, where, what), and its totals. */
export interface RedoclyFindings {
  problems: string[];
  totals: Record<string, number>;
}

/**
 * Lints `document` (a served body, written as it is to a temporary file named
 * `name`, removed after). The linter exits non-zero on findings; the JSON report
 * on stdout is what counts.
 */
export async function redoclyLint(document: string, name: string): Promise<RedoclyFindings> {
  const dir = mkdtempSync(join(tmpdir(), 'mds-openapi-lint-'));
  try {
    const file = join(dir, name);
    writeFileSync(file, document);
    const args = ['lint', '--config', CONFIG, '--format', 'json', file];
    let out: string;
    try {
      out = (await run(REDOCLY, args, { env, maxBuffer: 16 * 1024 * 1024, timeout: 60_000 })).stdout;
    } catch (err) {
      out = (err as { stdout?: string }).stdout ?? '';
      if (!out.trim()) throw err;
    }
    const report = JSON.parse(out) as { totals: Record<string, number>; problems: RedoclyProblem[] };
    return {
      problems: report.problems.map(
        (p) => `${p.ruleId} (${p.severity}) at ${p.location[0]?.pointer}: ${p.message}`,
      ),
      totals: report.totals,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
