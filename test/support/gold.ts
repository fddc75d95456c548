/** The gold records of the harness's sample, as the API shows them: shared by the gold-latest and gold-history suites. */
import { type GoldObservation, PURITIES } from '../../src/domain/types.js';
import { generateSample } from '../../src/sample/generate.js';
import { DAY, SAMPLE_END } from './harness.js';

const sample = generateSample({ endDate: SAMPLE_END });
export const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
export const addDays = (date: string, n: number) => day(Date.parse(`${date}T00:00:00Z`) + n * DAY);
const record = (g: GoldObservation) => ({
  purity: g.purity,
  quote: 'DZD',
  unit: 'gram',
  buy: g.buy / 1e6,
  sell: g.sell / 1e6,
  updatedAt: new Date(g.updatedAt).toISOString(),
});
/** The sample's gold records from `from` to `to` (UTC days), newest first, ties in purity order. */
export function expected(from: string, to: string) {
  const lo = Date.parse(`${from}T00:00:00.000Z`);
  const hi = Date.parse(`${to}T23:59:59.999Z`);
  return sample.gold
    .filter((g) => g.updatedAt >= lo && g.updatedAt <= hi)
    .sort((a, b) => b.updatedAt - a.updatedAt || PURITIES.indexOf(a.purity) - PURITIES.indexOf(b.purity))
    .map(record);
}
