/**
 * `npm run bench:pipeline` (bench/pipeline.ts): the pipeline driven with
 * stand-ins for Node's request and response. It measures only after its
 * stand-ins got the answer a real request gets, and reports CPU per answer.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/paths.js';

const run = promisify(execFile);
const SCRIPT = join(PROJECT_ROOT, 'dist', 'bench', 'pipeline.js');

describe('bench:pipeline', () => {
  it('checks its stand-ins against a real answer, then reports CPU per answer for each round', async () => {
    const { stdout } = await run(process.execPath, [SCRIPT, '--rounds', '2', '--seconds', '1'], {
      timeout: 60_000,
    });
    const rounds = stdout.match(/^\d+ answers: [\d.]+ µs of CPU per answer \(user [\d.]+\)$/gm);
    expect(rounds, stdout).toHaveLength(2);
    for (const line of rounds!) expect(Number(line.split(' ')[0])).toBeGreaterThan(0);
    expect(stdout).toMatch(
      /the pipeline without Node's HTTP, 50 requests a tick.*: median [\d.]+ µs of CPU per answer over 2 rounds of 1 s/,
    );
  }, 90_000);

  it('refuses a setting that is not a whole number above 0, naming it', async () => {
    const failed = await run(process.execPath, [SCRIPT, '--batch', '0']).then(
      () => null,
      (err: { stderr: string }) => err.stderr,
    );
    expect(failed).toContain('--batch 0: give a whole number above 0');
  });
});
