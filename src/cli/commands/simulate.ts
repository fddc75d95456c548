/**
 * `mds simulate reporters` (docs/decisions.md 118): simulated organisations
 * post reproducible street quotes to the reporter API in real time, so an
 * operator can watch the consensus and its quality before going live. The
 * store (--db) makes the reporters and is read for bases and publications;
 * the quotes go over HTTP to --url, as a reporter's program sends them.
 */
import { type Parsed, parseBase, parseDuration, parseGroup, parsePercent } from '../../simulate/options.js';
import { organisationsOf, type SimulationSpec, simulatedQuotes, specProblem } from '../../simulate/quotes.js';
import { runSimulation } from '../../simulate/run.js';
import { latestBases, prepareReporters, publicationWatcher } from '../../simulate/setup.js';
import { openStore } from '../../storage/open.js';
import type { Command } from '../command.js';
import { cliActor, list, outcome, str } from '../operation.js';
import { CliError } from '../output.js';
import { withStore } from '../with-store.js';

const value = <T>(parsed: Parsed<T>): T => {
  if (parsed.ok) return parsed.value;
  throw new CliError(parsed.message, 2);
};

const count = (option: string, text: string | undefined, fallback: number, min: number, max: number) => {
  if (text === undefined) return fallback;
  const n = /^\d{1,4}$/.test(text) ? Number(text) : Number.NaN;
  if (!(n >= min && n <= max))
    throw new CliError(`${option}: ${JSON.stringify(text)} must be a whole number from ${min} to ${max}`, 2);
  return n;
};

const time = (ms: number) => new Date(ms).toISOString().slice(11, 19);
const pct = (f: number) => `${f >= 0 ? '+' : ''}${Math.round(f * 10_000) / 100}%`;

export const simulateCommand: Command = {
  name: ['simulate', 'reporters'],
  usage:
    'simulate reporters --markets EUR,USD [--organisations 8] [--reporters 1] [--noise 0.3%] [--rogue 1:+10%] ' +
    '[--collude 2:+5%] [--duration 10m] [--interval 30s] [--seed 42] [--base EUR=260] [--url http://127.0.0.1:9090]',
  options: {
    markets: { type: 'string' },
    organisations: { type: 'string' },
    reporters: { type: 'string' },
    noise: { type: 'string' },
    rogue: { type: 'string' },
    collude: { type: 'string' },
    duration: { type: 'string' },
    interval: { type: 'string' },
    seed: { type: 'string' },
    base: { type: 'string' },
    url: { type: 'string' },
  },
  async run({ values, out, databaseUrl }) {
    const markets = list(values.markets) ?? [];
    if (markets.length === 0) throw new CliError('--markets is required, e.g. --markets EUR,USD,21K', 2);
    const seedText = str(values.seed) ?? '42';
    if (!/^\d{1,10}$/.test(seedText))
      throw new CliError(`--seed: ${JSON.stringify(seedText)} must be a whole number, e.g. 42`, 2);
    const durationMs = value(parseDuration('--duration', str(values.duration) ?? '10m'));
    const given = value(parseBase(str(values.base) ?? ''));
    const partial = {
      seed: Number(seedText),
      markets,
      organisations: count('--organisations', str(values.organisations), 8, 3, 200),
      reportersPerOrganisation: count('--reporters', str(values.reporters), 1, 1, 20),
      noise: value(parsePercent('--noise', str(values.noise) ?? '0.3%', false)),
      rogue:
        values.rogue === undefined
          ? { count: 0, offset: 0 }
          : value(parseGroup('--rogue', str(values.rogue)!)),
      collude:
        values.collude === undefined
          ? { count: 0, offset: 0 }
          : value(parseGroup('--collude', str(values.collude)!)),
      intervalMs: value(parseDuration('--interval', str(values.interval) ?? '30s')),
    };
    const url = str(values.url) ?? 'http://127.0.0.1:9090';
    if (!/^https?:\/\/\S+$/.test(url))
      throw new CliError(
        `--url: ${JSON.stringify(url)} must be http:// or https://, e.g. http://127.0.0.1:9090`,
        2,
      );

    const { spec, tokens } = await withStore(databaseUrl, async (store) => {
      const spec: SimulationSpec = { ...partial, base: { ...(await latestBases(store)), ...given } };
      const problem = specProblem(spec);
      if (problem) throw new CliError(problem, 2);
      return { spec, tokens: await prepareReporters(store, cliActor(), spec, outcome) };
    });

    for (const o of organisationsOf(spec))
      out.note(`sim-${o.index}: ${o.role}${o.offset === 0 ? '' : ` ${pct(o.offset)}`}`);
    for (const m of markets) out.note(`${m}: base buy ${spec.base[m]!.buy}, sell ${spec.base[m]!.sell}`);
    out.note(`Posting to ${url}/report/v1 for ${durationMs / 1000} s (Ctrl-C stops)`);

    const stop = new AbortController();
    const onSignal = () => stop.abort();
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    const store = openStore(databaseUrl);
    const publications: unknown[] = [];
    try {
      const summary = await runSimulation({
        url,
        quotes: simulatedQuotes(spec, durationMs),
        tokens,
        runId: `${spec.seed}-${Date.now()}`,
        observe: publicationWatcher(store, markets),
        signal: stop.signal,
        onPublication: (p) => {
          publications.push(p);
          out.note(
            `${time(p.at)} ${p.market} published buy ${p.buy} sell ${p.sell}: ${p.organisations} organisations, ` +
              `${p.excluded} excluded, confidence ${p.confidence}`,
          );
        },
        onRefusal: (q, status, message) =>
          out.note(
            `sim-${q.organisation}-r${q.reporter + 1} ${q.market} ${q.buy}/${q.sell} refused (${status}): ${message}`,
          ),
      });
      const states = await Promise.all(markets.map((m) => store.consensus.marketState(m)));
      out.result(
        {
          ...summary,
          stopped: stop.signal.aborted,
          publications,
          markets: states.map((s, i) => ({ market: markets[i], state: s?.state ?? null })),
        },
        [
          `${summary.sent} quotes sent, ${summary.accepted} accepted, ${summary.refused} refused; ` +
            `${summary.publications} publications${stop.signal.aborted ? ' (stopped early)' : ''}`,
          ...states.map((s, i) => `${markets[i]}: ${s?.state ?? 'no consensus yet'}`),
        ],
      );
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      await store.close();
    }
  },
};
