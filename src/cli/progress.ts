import type { Progress } from '../import/run.js';

/** Progress on a terminal (stderr), for large imports; nothing when piped or with --json. */
export function terminalProgress(enabled: boolean): Progress | undefined {
  if (!enabled || !process.stderr.isTTY) return undefined;
  const started = performance.now();
  const at = () => `${((performance.now() - started) / 1000).toFixed(1)} s`;
  return {
    step: (text) => process.stderr.write(`\r\x1b[K[${at()}] ${text}\n`),
    count: (done, total) =>
      process.stderr.write(
        `\r\x1b[K[${at()}] ${done.toLocaleString('en')} / ${total.toLocaleString('en')} (${Math.floor((done / total) * 100)} %)`,
      ),
    done: () => process.stderr.write(`\r\x1b[K`),
  };
}
