/**
 * The simulator's quotes (docs/decisions.md 118): a reproducible stream of
 * street quotes from simulated organisations, with no clock and no I/O, so
 * the same seed gives the same quotes whatever the machine's speed. Each
 * reporter quotes each of its markets at random intervals around a price that
 * wanders slowly; honest organisations add their own noise, colluding ones
 * share one offset and one draw, rogue ones quote at their own offset.
 */

/** mulberry32: a small, fast 32-bit generator; uniform in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** A standard normal draw (Box–Muller) from a uniform source. */
function normal(random: () => number): number {
  const u = 1 - random();
  const v = random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

export type Role = 'honest' | 'colluding' | 'rogue';

export interface SimulatedOrganisation {
  /** 1-based: `sim-1`… */
  index: number;
  role: Role;
  /** Fraction added to the price: +0.1 for +10 %. */
  offset: number;
}

export interface SimulationSpec {
  seed: number;
  markets: string[];
  organisations: number;
  reportersPerOrganisation: number;
  /** Standard deviation of each quote's own noise, as a fraction (0.003 for 0.3 %). */
  noise: number;
  rogue: { count: number; offset: number };
  collude: { count: number; offset: number };
  /** Mean time between two quotes of one reporter for one market, in ms. */
  intervalMs: number;
  /** Each market's buy and sell at the start, in DZD. */
  base: Record<string, { buy: number; sell: number }>;
}

export interface SimulatedQuote {
  /** Milliseconds from the start of the run. */
  atMs: number;
  organisation: number;
  /** 0-based within its organisation. */
  reporter: number;
  market: string;
  buy: number;
  sell: number;
}

/** Honest organisations first, then the colluding ones, then the rogue ones (the last). */
export function organisationsOf(spec: SimulationSpec): SimulatedOrganisation[] {
  const { organisations: n, rogue, collude } = spec;
  return Array.from({ length: n }, (_, i) => {
    const index = i + 1;
    if (index > n - rogue.count) return { index, role: 'rogue', offset: rogue.offset };
    if (index > n - rogue.count - collude.count) return { index, role: 'colluding', offset: collude.offset };
    return { index, role: 'honest', offset: 0 };
  });
}

/** A problem with the spec, in the words of the option to change; null when it can run. */
export function specProblem(spec: SimulationSpec): string | null {
  if (spec.rogue.count + spec.collude.count > spec.organisations)
    return `--rogue and --collude name ${spec.rogue.count + spec.collude.count} organisations of ${spec.organisations}: raise --organisations or lower their counts`;
  for (const market of spec.markets)
    if (!spec.base[market]) return `--base: no base for ${market}; give one, e.g. --base ${market}=260`;
  return null;
}

const round2 = (value: number) => Math.round(value * 100) / 100;

/**
 * The quotes in the order they are sent, earliest first (ties in the order of
 * organisation, reporter, market), until `untilMs`. One generator drives
 * everything in that order, so the stream depends on the seed alone.
 */
export function* simulatedQuotes(spec: SimulationSpec, untilMs: number): Generator<SimulatedQuote> {
  const random = mulberry32(spec.seed);
  const organisations = organisationsOf(spec);
  // Each market's mid wanders by a tenth of the noise per quote, so the consensus moves now and then.
  const drift = new Map(spec.markets.map((m) => [m, 1]));
  const streams: { organisation: SimulatedOrganisation; reporter: number; market: string; next: number }[] =
    [];
  for (const organisation of organisations)
    for (let reporter = 0; reporter < spec.reportersPerOrganisation; reporter++)
      for (const market of spec.markets)
        streams.push({ organisation, reporter, market, next: random() * spec.intervalMs });
  // The colluders' shared draw, renewed with each of their quotes' market.
  const collusion = new Map(spec.markets.map((m) => [m, 0]));
  for (;;) {
    let due = streams[0];
    for (const s of streams) if (due === undefined || s.next < due.next) due = s;
    if (due === undefined || due.next >= untilMs) return;
    const { organisation, market } = due;
    const walk = (drift.get(market) ?? 1) * (1 + (spec.noise / 10) * normal(random));
    drift.set(market, walk);
    let own = spec.noise * normal(random);
    if (organisation.role === 'colluding') {
      if (organisation.index === organisations.find((o) => o.role === 'colluding')?.index)
        collusion.set(market, own);
      own = collusion.get(market) ?? own;
    }
    const factor = walk * (1 + organisation.offset + own);
    const base = spec.base[market]!;
    const buy = round2(base.buy * factor);
    // The spread is kept, and never negative.
    const sell = Math.max(buy, round2(base.sell * factor));
    yield {
      atMs: Math.round(due.next),
      organisation: organisation.index,
      reporter: due.reporter,
      market,
      buy,
      sell,
    };
    due.next += spec.intervalMs * (0.5 + random());
  }
}
