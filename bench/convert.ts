/**
 * The convert row (docs/decisions.md 138): `GET /v1/convert` against
 * `GET /v1/rates/latest` on the same `mds serve`, both loaded in the same
 * rounds (the order reversed every other round), each run's CPU per answer
 * read from /proc. The target is a ratio of the two on the same process, so
 * that the machine's other load cancels out as it does for the hot path.
 */

import { type LoadSettings, type Measured, measure, median, type Target } from './load.js';
import { stop } from './proc.js';
import { answer, startService } from './service.js';
import type { Prepared } from './setup.js';

/** A cross (two legs, the most work a conversion does), with a fractional amount. */
export const CONVERT_PATH = '/v1/convert?from=EUR&to=USD&amount=1234.56';
const LATEST_PATH = '/v1/rates/latest';
/** A conversion may cost at most this many times the CPU of an answer of the latest rates. */
export const CONVERT_MAX_RATIO = 1.5;

type Run = { rps: number; p99Us: number; cpuUs: number };
export interface ConvertReport {
  latest: Run[];
  convert: Run[];
  /** Each round's CPU per conversion ÷ CPU per latest answer. */
  ratios: number[];
  errors: number;
}

const run = (m: Measured): Run => ({ rps: Math.round(m.rps), p99Us: m.p99Us, cpuUs: m.cpuUs });

export async function measureConvert(o: {
  store: Prepared;
  cpus: string | undefined;
  settings: LoadSettings;
  log: (line: string) => void;
}): Promise<ConvertReport> {
  o.log(`bench: ${CONVERT_PATH} against ${LATEST_PATH}, embedded`);
  const service = await startService(o.store.url, o.store.key, o.cpus);
  // Both answer 200 before anything is measured (answer() throws otherwise).
  await answer(service.origin, CONVERT_PATH, o.store.key);
  await answer(service.origin, LATEST_PATH, o.store.key);
  const target: Target = { name: 'service', ...service };
  const s = o.settings;
  let errors = 0;
  const once = async (path: string, seconds: number) => {
    const m = await measure(target, path, seconds, s);
    errors += m.socketErrors + m.non2xx;
    return m;
  };
  for (let i = 0; i < s.warmupSeconds; i++) {
    await once(LATEST_PATH, 1);
    await once(CONVERT_PATH, 1);
  }
  const report: ConvertReport = { latest: [], convert: [], ratios: [], errors: 0 };
  for (let r = 0; r < s.rounds; r++) {
    const order = r % 2 ? [CONVERT_PATH, LATEST_PATH] : [LATEST_PATH, CONVERT_PATH];
    const got: Record<string, Measured> = {};
    for (const path of order) got[path] = await once(path, s.seconds);
    const latest = got[LATEST_PATH]!;
    const convert = got[CONVERT_PATH]!;
    report.latest.push(run(latest));
    report.convert.push(run(convert));
    report.ratios.push(Math.round((convert.cpuUs / latest.cpuUs) * 100) / 100);
    o.log(
      `    round ${r + 1}/${s.rounds} latest ${latest.cpuUs} µs CPU/answer, convert ${convert.cpuUs} µs CPU/answer`,
    );
  }
  await stop(service.proc);
  report.errors = errors;
  return report;
}

type Figure = [measured: string, ok: boolean] | string | undefined;

export function convertTargets(r: ConvertReport | undefined): Array<[string, string, Figure]> {
  const cpu = (runs: Run[]) => median(runs.map((x) => x.cpuUs));
  const ratio = r && median(r.ratios);
  return [
    [
      `${CONVERT_PATH}, embedded: CPU per answer against ${LATEST_PATH} on the same server`,
      `≤ ${CONVERT_MAX_RATIO.toFixed(2)}× (CPU per conversion ÷ CPU per latest answer), 0 errors`,
      r && [
        `${ratio!.toFixed(2)}× (rounds ${r.ratios.map((x) => x.toFixed(2)).join(', ')}): convert ${cpu(r.convert)} µs, ` +
          `latest ${cpu(r.latest)} µs; ${median(r.convert.map((x) => x.rps)).toLocaleString('en')} conversions/s; ${r.errors} errors`,
        ratio! <= CONVERT_MAX_RATIO && r.errors === 0,
      ],
    ],
  ];
}
