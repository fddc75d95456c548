/**
 * Start to first 200: spawn `mds serve` on a store holding the two-year sample
 * and poll /v1/rates/latest with the key every few milliseconds; the time from
 * spawn to the first 200 answer.
 */
import { freePort, spawnPinned, stop, waitFor200 } from './proc.js';
import { serviceCommand } from './service.js';

export interface StartupResult {
  runsMs: number[];
  medianMs: number;
}

export async function measureStartup(
  dbUrl: string,
  key: string,
  runs: number,
  cpus: string | undefined,
): Promise<StartupResult> {
  const runsMs: number[] = [];
  for (let i = 0; i < runs; i++) {
    const port = await freePort();
    const { command, args, env } = serviceCommand(port, dbUrl);
    const started = performance.now();
    const proc = spawnPinned(cpus, command, args, env);
    try {
      const at = await waitFor200(
        `http://127.0.0.1:${port}/v1/rates/latest`,
        { authorization: `Bearer ${key}` },
        proc,
        { everyMs: 2, timeoutMs: 30_000 },
      );
      runsMs.push(Math.round((at - started) * 10) / 10);
    } finally {
      await stop(proc);
    }
  }
  const sorted = [...runsMs].sort((a, b) => a - b);
  return { runsMs, medianMs: sorted[Math.floor(sorted.length / 2)] ?? Number.NaN };
}
