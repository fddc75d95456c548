/**
 * `npm run soak`: a bounded load run at a fixed rate against 127.0.0.1.
 * Reports the error count (must be 0), latency percentiles, and the server's
 * memory at start and end, and fails if errors occur or memory grows past the
 * stated bound. Not part of `npm test`.
 *
 *   npm run soak -- [--minutes 5] [--rate 500] [--max-growth-mb 40]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { generateSample } from '../src/sample/generate.js';
import { freePort, procStatusKb, sleep, spawnPinned, stop, waitFor200 } from './proc.js';
import { prepareSqlite } from './setup.js';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '5' },
    rate: { type: 'string', default: '500' },
    'max-growth-mb': { type: 'string', default: '40' },
  },
});
const minutes = Number(values.minutes);
const rate = Number(values.rate);
const maxGrowthMb = Number(values['max-growth-mb']);

const PATHS = [
  '/v1/rates/latest',
  '/v1/rates/latest?currency=EUR,USD',
  '/v1/market/premium',
  '/v1/market/premium/history?currency=EUR',
  '/v1/gold/latest',
  '/v1/me',
  '/v1/assets',
  '/v1/rates/history?currency=EUR&limit=250',
  '/v1/gold/history?limit=100',
];

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0
    ? 0
    : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'mds-soak-'));
  const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
  const prepared = await prepareSqlite(dir, generateSample({ endDate: yesterday }));
  const port = await freePort();
  const server = spawnPinned(
    undefined,
    process.execPath,
    ['dist/mds.mjs', 'serve', '--port', String(port), '--db', prepared.url],
    {
      ...process.env,
      MDS_LOG_LEVEL: 'warn',
    },
  );
  const base = `http://127.0.0.1:${port}`;
  const headers = { authorization: `Bearer ${prepared.key}` };
  await waitFor200(`${base}/v1/assets`, headers, server);

  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  let errors = 0;
  let sent = 0;
  const one = (path: string) =>
    new Promise<void>((resolve) => {
      const started = performance.now();
      http
        .get(`${base}${path}`, { agent, headers }, (res) => {
          res.resume();
          res.on('end', () => {
            latencies.push(performance.now() - started);
            statuses.set(res.statusCode!, (statuses.get(res.statusCode!) ?? 0) + 1);
            if (res.statusCode! >= 300) errors++;
            resolve();
          });
        })
        .on('error', () => {
          errors++;
          resolve();
        });
    });

  // Warm up, then take the starting memory.
  for (let i = 0; i < 200; i++) await one(PATHS[i % PATHS.length]!);
  const rssStart = procStatusKb(server.pid, 'VmRSS') ?? 0;
  const durationMs = minutes * 60_000;
  const started = performance.now();
  const inflight = new Set<Promise<void>>();
  const samples: Array<{ at: number; rssMb: number }> = [];
  const sampler = setInterval(() => {
    samples.push({
      at: (performance.now() - started) / 1000,
      rssMb: (procStatusKb(server.pid, 'VmRSS') ?? 0) / 1024,
    });
  }, 10_000);
  // Fixed rate: request n is due at started + n / rate, whatever the answers do.
  while (performance.now() - started < durationMs) {
    const due = started + (sent / rate) * 1000;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    const p = one(PATHS[sent % PATHS.length]!);
    sent++;
    inflight.add(p);
    void p.then(() => inflight.delete(p));
  }
  await Promise.all(inflight);
  clearInterval(sampler);
  const rssEnd = procStatusKb(server.pid, 'VmRSS') ?? 0;
  await stop(server);
  agent.destroy();
  rmSync(dir, { recursive: true, force: true });

  const sorted = latencies.sort((a, b) => a - b);
  const growthMb = (rssEnd - rssStart) / 1024;
  const elapsed = (performance.now() - started) / 1000;
  const report = {
    date: new Date().toISOString(),
    minutes,
    targetRate: rate,
    achievedRate: Math.round(sent / elapsed),
    requests: sent,
    errors,
    statuses: Object.fromEntries(statuses),
    latencyMs: {
      p50: +percentile(sorted, 50).toFixed(2),
      p90: +percentile(sorted, 90).toFixed(2),
      p99: +percentile(sorted, 99).toFixed(2),
      max: +(sorted.at(-1) ?? 0).toFixed(2),
    },
    rssMb: {
      start: +(rssStart / 1024).toFixed(1),
      end: +(rssEnd / 1024).toFixed(1),
      growth: +growthMb.toFixed(1),
      bound: maxGrowthMb,
    },
    rssSamples: samples.map((s) => ({ at: Math.round(s.at), rssMb: +s.rssMb.toFixed(1) })),
  };
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  const ok = errors === 0 && growthMb <= maxGrowthMb;
  process.stdout.write(
    `${ok ? 'PASS' : 'FAIL'}: ${errors} errors, memory ${report.rssMb.start} → ${report.rssMb.end} MB (bound +${maxGrowthMb} MB)\n`,
  );
  process.exitCode = ok ? 0 : 1;
}

main().catch((err: unknown) => {
  process.stderr.write(`soak: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exitCode = 1;
});
