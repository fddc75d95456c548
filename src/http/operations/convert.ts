import { centsText, convert as converted, MAX_CONVERT_UNITS } from '../../domain/convert.js';
import { microsToNumber, parseAmountUnits, unitsText } from '../../domain/decimal.js';
import { ratesEntitlement } from '../../domain/scopes.js';
import { QUOTE } from '../../domain/types.js';
import type { Services } from '../../runtime/services.js';
import { ConvertQuery, ConvertResponse } from '../../schemas/convert.js';
import type { QueryOf } from '../../schemas/query.js';
import { responses } from '../../schemas/responses.js';
import type { ErrorDetail } from '../errors.js';
import { operation } from '../pipeline/operation.js';
import { MAX_AGE, type PreparedAnswer } from '../respond.js';
import { preparer } from '../serialize.js';

const body = preparer(ConvertResponse);

/** What the refinement adds to the validated query: the amount in units of 10^-8. */
interface Units {
  units: bigint;
}
type Query = QueryOf<typeof ConvertQuery> & Units;

/** The rules between parameters and of the amount's value (docs/decisions.md 134). */
function refine(q: Query, problems: ErrorDetail[]): void {
  if (q.from !== undefined && q.from === q.to)
    problems.push({ parameter: 'to', message: 'must differ from `from`: give two different codes' });
  if (q.amount === undefined) return;
  const units = parseAmountUnits(q.amount);
  if (units === null || units <= 0n)
    problems.push({ parameter: 'amount', message: 'must be more than 0, such as 0.01 or 100' });
  else if (units > MAX_CONVERT_UNITS)
    problems.push({ parameter: 'amount', message: 'must be at most 1000000000: convert a smaller amount' });
  else q.units = units;
}

export function convert({ market }: Services) {
  return operation<typeof ConvertQuery, Units>({
    url: '/convert',
    schema: {
      operationId: 'convertAmount',
      summary: 'Convert an amount',
      description:
        'An amount into dinars at the buy rate of `from`, dinars into `to` at its sell rate, or one currency into ' +
        'another through the dinar (both legs in one exact fraction), from the latest rates of `source`. The ' +
        'result is rounded once to 2 decimals, half away from zero. Requires `rates:<source>:latest:read`. ' +
        '400 when `from` equals `to`; 404 when a code is unknown or has no rate in the source. JSON only.',
      tags: ['Rates'],
      'x-entitlement': 'rates:<source>:latest:read',
      querystring: ConvertQuery,
      response: responses(
        ConvertResponse,
        'The conversion and the rates it applied',
        [400, 401, 403, 404, 429, 503],
      ),
    },
    refine,
    entitlement: (q) => ratesEntitlement(q.source, 'latest'),
    // Read from the snapshot, as /v1/rates/latest; built per request, not cached: amounts are too
    // many to keep (docs/decisions.md 136).
    answer: (q: Query): PreparedAnswer | { notFound: string } => {
      const snapshot = market.snapshot;
      const view = snapshot.bySource[q.source];
      const c = converted(q.from, q.to, q.units, (code) =>
        view.byCode.has(code) ? snapshot.latest(q.source, code) : undefined,
      );
      if (!c.ok) return { notFound: `No ${q.source} rate for ${c.missing}.` };
      const text = centsText(c.cents);
      const prepared = body(
        {
          from: q.from,
          to: q.to,
          source: q.source,
          amount: unitsText(q.units),
          result: Number(text),
          resultDecimal: text,
          rates: c.legs.map((l) => ({
            currency: l.currency,
            quote: QUOTE,
            side: l.side,
            rate: microsToNumber(l.micros),
            updatedAt: new Date(l.updatedAt).toISOString(),
          })),
        },
        {},
      );
      return { body: prepared, maxAge: MAX_AGE.latest };
    },
  });
}
