/**
 * `mds simulate reporters`'s options read as numbers (docs/decisions.md 118):
 * each parser returns the value, or a sentence naming the option, the value
 * and the form to write instead.
 */
export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

const ok = <T>(value: T): Parsed<T> => ({ ok: true, value });
const no = (message: string): Parsed<never> => ({ ok: false, message });

const UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/** `500ms`, `5s`, `10m`, `1h`: milliseconds, at least 1 and at most a day. */
export function parseDuration(option: string, text: string): Parsed<number> {
  const m = /^(\d{1,8})(ms|s|m|h)$/.exec(text.trim());
  const ms = m ? Number(m[1]) * UNITS[m[2]!]! : Number.NaN;
  if (!(ms >= 1 && ms <= 86_400_000))
    return no(
      `${option}: ${JSON.stringify(text)} is not a duration of 1 ms to 24 h; write e.g. 10m, 30s or 500ms`,
    );
  return ok(ms);
}

/** `0.3%` (or `+10%`, `-5%` when signed): a fraction. */
export function parsePercent(option: string, text: string, signed: boolean): Parsed<number> {
  const m = /^([+-]?)(\d{1,3}(?:\.\d{1,4})?)%$/.exec(text.trim());
  if (!m || (!signed && m[1] !== '') || Number(m[2]) > 100)
    return no(
      `${option}: ${JSON.stringify(text)} is not a percentage; write e.g. ${signed ? '+10%' : '0.3%'} (at most 100%)`,
    );
  return ok(((m[1] === '-' ? -1 : 1) * Number(m[2])) / 100);
}

/** `1:+10%`: how many organisations, and their offset. */
export function parseGroup(option: string, text: string): Parsed<{ count: number; offset: number }> {
  const m = /^(\d{1,3}):(.+)$/.exec(text.trim());
  const offset = m ? parsePercent(option, m[2]!, true) : null;
  if (!m || !offset?.ok)
    return no(
      `${option}: ${JSON.stringify(text)} is not COUNT:OFFSET; write e.g. 1:+10% (one organisation 10 % high)`,
    );
  return ok({ count: Number(m[1]), offset: offset.value });
}

/** `EUR=260` (buy; sell 1 % above) or `EUR=259.5/262`, comma-separated. */
export function parseBase(text: string): Parsed<Record<string, { buy: number; sell: number }>> {
  const base: Record<string, { buy: number; sell: number }> = {};
  for (const item of text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const m = /^([A-Z0-9]{2,3})=(\d{1,9}(?:\.\d{1,6})?)(?:\/(\d{1,9}(?:\.\d{1,6})?))?$/.exec(item);
    const buy = Number(m?.[2]);
    const sell = m?.[3] === undefined ? Math.round(buy * 101) / 100 : Number(m[3]);
    if (!m || !(buy > 0) || sell < buy)
      return no(
        `--base: ${JSON.stringify(item)} is not MARKET=BUY or MARKET=BUY/SELL (sell at least buy); write e.g. EUR=260 or EUR=259.5/262`,
      );
    base[m[1]!] = { buy, sell };
  }
  return ok(base);
}
