/** Request and response schemas of /v1/convert (docs/decisions.md 134-137). */
import { Type } from '@sinclair/typebox';
import { AssetCode, Envelope, Quote, RequestMeta, SourceName, SourceParam, Timestamp } from './common.js';
import { Defaulted } from './query.js';

const CODE_PATTERN = '^[A-Z0-9]{2,10}$';
const codeParam = (description: string, example: string) =>
  Type.String({
    pattern: CODE_PATTERN,
    maxLength: 10,
    description,
    examples: [example],
    errorMessage: 'must be one uppercase asset code (2 to 10 of A-Z, 0-9), or DZD for dinars',
  });

export const ConvertQuery = Type.Object(
  {
    from: codeParam('The code of the amount given; `DZD` for dinars', 'EUR'),
    to: codeParam('The code of the result; `DZD` for dinars. Must differ from `from`', 'DZD'),
    amount: Type.String({
      pattern: '^(?:0|[1-9][0-9]{0,9})(?:\\.[0-9]{1,8})?$',
      maxLength: 19,
      description:
        'A plain decimal: more than 0, at most 1000000000, at most 8 decimals (`100`, `0.01`, `250.5`)',
      examples: ['100'],
      errorMessage:
        'must be a plain decimal number with at most 8 decimals, without sign, exponent or leading zero, ' +
        'such as 100 or 250.5',
    }),
    source: Defaulted(SourceParam, 'parallel'),
  },
  { additionalProperties: false },
);

export const ConversionRate = Type.Object(
  {
    currency: AssetCode,
    quote: Quote,
    side: Type.Union([Type.Literal('buy'), Type.Literal('sell')], {
      description: '`buy` for the currency given into dinars, `sell` for dinars into the currency',
    }),
    rate: Type.Number({
      description: 'DZD per unit of `currency` on that side, as /v1/rates/latest serves it',
    }),
    updatedAt: Timestamp,
  },
  { component: 'ConversionRate' },
);

const example = {
  data: {
    from: 'EUR',
    to: 'USD',
    source: 'parallel',
    amount: '100',
    result: 97.86,
    resultDecimal: '97.86',
    rates: [
      { currency: 'EUR', quote: 'DZD', side: 'buy', rate: 258.45, updatedAt: '2026-11-21T09:00:00.000Z' },
      { currency: 'USD', quote: 'DZD', side: 'sell', rate: 264.1, updatedAt: '2026-11-21T09:00:00.000Z' },
    ],
  },
  meta: { requestId: 'req_3f9k2m1x_1a' },
};

export const Conversion = Type.Object(
  {
    from: AssetCode,
    to: AssetCode,
    source: SourceName,
    amount: Type.String({ description: 'The amount given, as a plain decimal without trailing zeros' }),
    result: Type.Number({
      description:
        'The amount in `to`, rounded once to 2 decimals half away from zero; exact to the cent up to 10^13',
    }),
    resultDecimal: Type.String({
      description: 'The same result as a decimal string with exactly 2 decimals, exact at any size',
      examples: ['97.86'],
    }),
    rates: Type.Array(ConversionRate, {
      description:
        'The rates applied, in order: `from` at buy (unless DZD), then `to` at sell (unless DZD); one or two',
    }),
  },
  { component: 'Conversion' },
);

export const ConvertResponse = Envelope(Conversion, RequestMeta, example);
