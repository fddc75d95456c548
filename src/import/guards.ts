/**
 * Plausibility guards (decisions 51): what no market quotes is refused before
 * anything is written, whatever way the data comes in.
 *
 * - a sell below the buy;
 * - a buy or a sell that differs by more than `maxChangePercent` from the
 *   nearest earlier observation of the same series (a currency and source, or
 *   a gold purity), stored or earlier in the same input.
 *
 * A record the guards refuse is never the reference of the next one: a single
 * typo gives a single problem, not a second one where the series comes back.
 */
import { microsToNumber, percentChange } from '../domain/decimal.js';
import type { GoldObservation, RateObservation } from '../domain/types.js';
import type { Point, SeriesKey } from '../storage/import-records.js';
import type { Store } from '../storage/store.js';
import type { ImportProblem, PartialRecord } from './records.js';

export const DEFAULT_MAX_CHANGE_PERCENT = 20;

const REVIEWED = 're-run with --accept-outliers once the file is reviewed';

const amount = (micros: number) => String(microsToNumber(micros));
const iso = (ms: number) => new Date(ms).toISOString();

type Observations =
  | { kind: 'rates'; records: readonly RateObservation[] }
  | { kind: 'gold'; records: readonly GoldObservation[] };

const belowBuy = (line: number, buy: number, sell: number): ImportProblem => ({
  line,
  message: `sell ${amount(sell)} is below buy ${amount(buy)}: a quote sells at or above its buy; check the two columns, or ${REVIEWED}`,
  kind: 'sell below buy',
});

/**
 * Sell below buy, for every record, and for every invalid one whose buy and
 * sell were read: a file's problems are all found in one pass.
 */
export function checkSpreads(
  batch: Observations,
  lines: readonly number[],
  partials: readonly PartialRecord[] = [],
): ImportProblem[] {
  const problems: ImportProblem[] = [];
  const records: ReadonlyArray<RateObservation | GoldObservation> = batch.records;
  records.forEach((r, i) => {
    if (r.sell < r.buy) problems.push(belowBuy(lines[i] ?? i + 1, r.buy, r.sell));
  });
  for (const p of partials) {
    if (p.buy !== undefined && p.sell !== undefined && p.sell < p.buy)
      problems.push(belowBuy(p.line, p.buy, p.sell));
  }
  return problems;
}

/**
 * Rates whose currency is not in the asset directory: the valid records'
 * and the invalid ones' whose currency was read.
 */
export async function checkDirectory(
  store: Store,
  records: readonly RateObservation[],
  lines: readonly number[],
  partials: readonly PartialRecord[],
): Promise<ImportProblem[]> {
  const read = partials.filter((p): p is PartialRecord & { currency: string } => p.currency !== undefined);
  if (records.length === 0 && read.length === 0) return [];
  const unknown = new Set(
    await store.imports.unknownAssets([...records.map((r) => r.currency), ...read.map((p) => p.currency)]),
  );
  if (unknown.size === 0) return [];
  const problem = (line: number, currency: string): ImportProblem => ({
    line,
    message: `currency: ${currency} is not in the asset directory (import it with \`mds import assets\` first)`,
    kind: 'currency not in the asset directory',
  });
  const problems: ImportProblem[] = [];
  records.forEach((r, i) => {
    if (unknown.has(r.currency)) problems.push(problem(lines[i] ?? i + 1, r.currency));
  });
  for (const p of read) if (unknown.has(p.currency)) problems.push(problem(p.line, p.currency));
  return problems;
}

function seriesOf(batch: Observations, i: number): { id: string; key: SeriesKey; label: string } {
  if (batch.kind === 'rates') {
    const r = batch.records[i]!;
    return {
      id: `${r.currency}\u0000${r.source}`,
      key: { kind: 'rates', currency: r.currency, source: r.source },
      label: `${r.currency} ${r.source}`,
    };
  }
  const g = batch.records[i]!;
  return { id: g.purity, key: { kind: 'gold', purity: g.purity }, label: `gold ${g.purity}` };
}

/** The larger relative change of buy and sell, in percent (4 decimals), with its side. */
function change(from: Point, to: Point): { side: 'buy' | 'sell'; percent: number } {
  const buy = percentChange(to.buy, from.buy);
  const sell = percentChange(to.sell, from.sell);
  return Math.abs(sell) > Math.abs(buy) ? { side: 'sell', percent: sell } : { side: 'buy', percent: buy };
}

/**
 * Changes beyond the threshold. Reads, per series in the input, the stored
 * observations over the input's time span and the one before it
 * (`Store.seriesAround`): a record of the input replaces a stored one with
 * the same instant, as the import will.
 */
export async function checkChanges(
  store: Store,
  batch: Observations,
  lines: readonly number[],
  maxChangePercent: number,
): Promise<ImportProblem[]> {
  const groups = new Map<string, { key: SeriesKey; label: string; indices: number[] }>();
  for (let i = 0; i < batch.records.length; i++) {
    const s = seriesOf(batch, i);
    let g = groups.get(s.id);
    if (g === undefined) {
      g = { key: s.key, label: s.label, indices: [] };
      groups.set(s.id, g);
    }
    g.indices.push(i);
  }
  const records: ReadonlyArray<RateObservation | GoldObservation> = batch.records;
  const problems: ImportProblem[] = [];
  for (const g of groups.values()) {
    g.indices.sort((a, b) => records[a]!.updatedAt - records[b]!.updatedAt);
    const from = records[g.indices[0]!]!.updatedAt;
    const to = records[g.indices.at(-1)!]!.updatedAt;
    const stored = await store.imports.seriesAround(g.key, from, to);
    // Both lists in time order: walk them together, the input winning a tie.
    let s = 0;
    let previous: Point | undefined;
    for (const i of g.indices) {
      const r = records[i]!;
      while (s < stored.length && stored[s]!.updatedAt < r.updatedAt) previous = stored[s++];
      if (s < stored.length && stored[s]!.updatedAt === r.updatedAt) s++;
      if (previous !== undefined) {
        const c = change(previous, r);
        if (Math.abs(c.percent) > maxChangePercent) {
          const sign = c.percent > 0 ? '+' : '';
          problems.push({
            line: lines[i] ?? i + 1,
            kind: `${c.side} beyond --max-change`,
            message:
              `${c.side} ${amount(r[c.side])} differs by ${sign}${c.percent.toFixed(1)} % from ${amount(previous[c.side])}, ` +
              `the ${g.label} ${c.side} at ${iso(previous.updatedAt)} (more than --max-change ${maxChangePercent} %); ` +
              `check the value, or ${REVIEWED}`,
          });
          continue;
        }
      }
      previous = r;
    }
  }
  return problems;
}
