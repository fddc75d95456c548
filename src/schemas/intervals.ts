/**
 * The items of a history page asked with `interval` (decisions 128–133): one
 * per UTC day, week (from Monday) or calendar month holding an observation of
 * the window. Each history operation documents its records as either its
 * plain record or its interval (historyParts, http/pipeline/history.ts); the
 * page's `meta` is the plain page's.
 */
import { type TArray, type TObject, type TSchema, Type } from '@sinclair/typebox';
import { INTERVALS } from '../domain/intervals.js';
import { AssetCode, GoldUnit, PurityName, Quote, SourceName, Timestamp } from './common.js';

const IntervalName = Type.Union(
  INTERVALS.map((i) => Type.Literal(i)),
  {
    component: 'IntervalName',
    description: 'The interval asked for: `day`, `week` (from Monday, UTC) or `month`',
  },
);

const Start = Type.String({
  format: 'date',
  description: "The interval's first day (UTC): the day, the Monday or the 1st, whatever the window's `from`",
  examples: ['2026-11-16'],
});

const Ohlc = (what: string, component: string) =>
  Type.Object(
    {
      open: Type.Number({ description: `The first ${what} of the interval in the window` }),
      high: Type.Number({ description: `The highest ${what}` }),
      low: Type.Number({ description: `The lowest ${what}` }),
      close: Type.Number({ description: `The last ${what} of the interval in the window` }),
    },
    { component },
  );

const PriceOhlc = Ohlc('price', 'Ohlc');
const PercentOhlc = Ohlc('daily premium percent', 'PercentOhlc');

const Span = {
  firstUpdatedAt: Type.String({
    ...Timestamp,
    description: 'The first observation of the interval in the window',
  }),
  lastUpdatedAt: Type.String({
    ...Timestamp,
    description: 'The last observation of the interval in the window',
  }),
  observations: Type.Integer({ minimum: 1, description: 'Observations of the interval in the window' }),
};

export const RateInterval = Type.Object(
  {
    currency: AssetCode,
    quote: Quote,
    source: SourceName,
    interval: IntervalName,
    start: Start,
    buy: PriceOhlc,
    sell: PriceOhlc,
    ...Span,
  },
  {
    component: 'RateInterval',
    description: 'One interval of a rate series (`interval` given)',
    examples: [
      {
        currency: 'EUR',
        quote: 'DZD',
        source: 'parallel',
        interval: 'week',
        start: '2026-11-16',
        buy: { open: 258.1, high: 259.4, low: 257.9, close: 259.1 },
        sell: { open: 261.4, high: 262.7, low: 261.2, close: 262.4 },
        firstUpdatedAt: '2026-11-16T09:00:00.000Z',
        lastUpdatedAt: '2026-11-22T09:00:00.000Z',
        observations: 7,
      },
    ],
  },
);

export const GoldInterval = Type.Object(
  {
    purity: PurityName,
    quote: Quote,
    unit: GoldUnit,
    interval: IntervalName,
    start: Start,
    buy: PriceOhlc,
    sell: PriceOhlc,
    ...Span,
  },
  {
    component: 'GoldInterval',
    description: 'One interval of a purity (`interval` given)',
    examples: [
      {
        purity: '18K',
        quote: 'DZD',
        unit: 'gram',
        interval: 'month',
        start: '2026-11-01',
        buy: { open: 29410, high: 29650, low: 29380, close: 29592 },
        sell: { open: 30580, high: 30820, low: 30550, close: 30767 },
        firstUpdatedAt: '2026-11-01T09:30:00.000Z',
        lastUpdatedAt: '2026-11-21T09:30:00.000Z',
        observations: 21,
      },
    ],
  },
);

const Day = (description: string) => Type.String({ format: 'date', description, examples: ['2026-11-16'] });

export const PremiumInterval = Type.Object(
  {
    currency: Type.String(),
    quote: Quote,
    interval: IntervalName,
    start: Start,
    buy: PercentOhlc,
    sell: PercentOhlc,
    firstDate: Day('The first day of the interval with a daily premium in the window'),
    lastDate: Day('The last day of the interval with a daily premium in the window'),
    days: Type.Integer({ minimum: 1, description: 'Daily premiums of the interval in the window' }),
    firstUpdatedAt: Type.String({
      ...Timestamp,
      description: "The parallel observation of the interval's first daily premium in the window",
    }),
    lastUpdatedAt: Type.String({
      ...Timestamp,
      description: "The parallel observation of the interval's last daily premium in the window",
    }),
    observations: Type.Integer({
      minimum: 1,
      description: 'Daily premiums of the interval in the window, as `days`',
    }),
  },
  {
    component: 'PremiumInterval',
    description:
      'One interval of the daily premium (`interval` given): open, high, low and close of the daily percents of ' +
      'buy and of sell, as the plain premium history lists them',
    examples: [
      {
        currency: 'EUR',
        quote: 'DZD',
        interval: 'week',
        start: '2026-11-16',
        buy: { open: 68.4113, high: 69.4021, low: 68.3012, close: 68.993 },
        sell: { open: 70.2011, high: 71.1002, low: 70.1002, close: 70.889 },
        firstDate: '2026-11-16',
        lastDate: '2026-11-20',
        days: 5,
        firstUpdatedAt: '2026-11-16T17:00:00.000Z',
        lastUpdatedAt: '2026-11-20T17:00:00.000Z',
        observations: 5,
      },
    ],
  },
);

/** The envelope of an interval page: `response`'s `meta`, its records `item`. */
export function intervalPage<M extends TObject, I extends TSchema>(
  response: TObject<{ data: TArray; meta: M }>,
  item: I,
) {
  return Type.Object(
    { data: Type.Array(item), meta: response.properties.meta },
    { additionalProperties: false },
  );
}

/**
 * `response` as the document shows it: each record is its plain record or,
 * with `interval`, `item`; the union is the component `component`, typed as
 * an object for the code generators (test/http/openapi-components.test.ts).
 */
export function documentedPage<D extends TSchema, M extends TObject, I extends TSchema>(
  response: TObject<{ data: TArray<D>; meta: M }>,
  item: I,
  component: string,
) {
  const { data, meta } = response.properties;
  const { properties: _, ...options } = response;
  const entry = Type.Union([data.items, item], {
    component,
    type: 'object',
    description: 'A record of the page: an observation, or with `interval` an interval',
  });
  return Type.Object({ data: Type.Array(entry), meta }, options);
}
