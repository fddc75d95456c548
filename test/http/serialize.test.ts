/**
 * Bytes from the schemas (src/http/serialize.ts): every /v1 body is written by
 * a serializer compiled from its response schema, and writes what
 * JSON.stringify would for the same values in the schema's order (the bytes
 * clients had before), numbers and escapes included; a kept body is split at
 * the request-id marker, even when the data holds the marker.
 */
import { type TSchema, Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { ApiError, errorBody } from '../../src/http/errors.js';
import { bodyFor } from '../../src/http/respond.js';
import { preparer, REQUEST_ID_MARKER, serializer, wireSchema } from '../../src/http/serialize.js';
import { examples } from '../../src/schemas/examples.js';
import { GoldInterval, PremiumInterval, RateInterval } from '../../src/schemas/intervals.js';
import {
  AssetsResponse,
  GoldHistoryPage,
  GoldIntervalsPage,
  GoldLatestResponse,
  PremiumHistoryPage,
  PremiumIntervalsPage,
  PremiumResponse,
  RatesHistoryPage,
  RatesIntervalsPage,
  RatesLatestResponse,
} from '../../src/schemas/market.js';
import { MeResponse } from '../../src/schemas/me.js';
import { DailyUsageResponse } from '../../src/schemas/usage.js';

/** The value with every object's members in the order `schema` declares them. */
function inSchemaOrder(schema: TSchema, value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  const wire = wireSchema(schema) as { type: string; items?: unknown; properties?: Record<string, unknown> };
  const branch = (s: TSchema): TSchema => {
    const options = (s.anyOf ?? s.oneOf) as TSchema[] | undefined;
    return options ? options.find((o) => o.type !== 'null')! : s;
  };
  if (Array.isArray(value)) return value.map((v) => inSchemaOrder(branch(schema).items as TSchema, v));
  const properties = branch(schema).properties as Record<string, TSchema>;
  expect(wire.type).toBe('object');
  return Object.fromEntries(
    Object.keys(properties)
      .filter((k) => k in (value as object))
      .map((k) => [k, inSchemaOrder(properties[k]!, (value as Record<string, unknown>)[k])]),
  );
}

/** A page of intervals: the plain page's example with the interval record's example as its data. */
const intervalsExample = (page: unknown, record: TSchema) => ({
  ...(page as object),
  data: record.examples as unknown[],
});

// The schemas the operations serialize with: a history page's documented schema (a union of its
// records) is the document's, each answer is one of these (src/schemas/intervals.ts).
const RESPONSES: Record<string, [TSchema, unknown]> = {
  assets: [AssetsResponse, examples.assets],
  ratesLatest: [RatesLatestResponse, examples.ratesLatest],
  ratesHistory: [RatesHistoryPage, examples.ratesHistory],
  ratesIntervals: [RatesIntervalsPage, intervalsExample(examples.ratesHistory, RateInterval)],
  premium: [PremiumResponse, examples.premium],
  premiumHistory: [PremiumHistoryPage, examples.premiumHistory],
  premiumIntervals: [PremiumIntervalsPage, intervalsExample(examples.premiumHistory, PremiumInterval)],
  goldLatest: [GoldLatestResponse, examples.goldLatest],
  goldHistory: [GoldHistoryPage, examples.goldHistory],
  goldIntervals: [GoldIntervalsPage, intervalsExample(examples.goldHistory, GoldInterval)],
  me: [MeResponse, examples.me],
  dailyUsage: [DailyUsageResponse, (DailyUsageResponse.examples as unknown[])[0]],
};

describe('serializers compiled from the response schemas', () => {
  it.each(Object.keys(RESPONSES))('%s: writes its documented example as JSON.stringify does', (name) => {
    const [schema, example] = RESPONSES[name]!;
    const ordered = inSchemaOrder(schema, example);
    expect(serializer(schema)(ordered as never)).toBe(JSON.stringify(ordered));
  });

  it('writes numbers and strings as JSON.stringify does', () => {
    const Schema = Type.Object({ n: Type.Array(Type.Number()), s: Type.Array(Type.String()) });
    const value = {
      n: [0, -0, 0.1 + 0.2, 1e21, 1e-7, 123456.789012, -262.5, 2 ** 53 + 2, 4.35],
      s: [
        'plain',
        'dinar algérien',
        'دينار جزائري',
        'a"b\\c',
        'tab\there\n',
        '\u2028',
        'lone \ud800',
        'x'.repeat(60),
      ],
    };
    expect(serializer(Schema)(value)).toBe(JSON.stringify(value));
  });

  it('writes only the members the schema declares, and refuses a missing required one', () => {
    const Schema = Type.Object({ a: Type.Integer(), b: Type.Optional(Type.String()) });
    const write = serializer(Schema);
    expect(write({ a: 1, extra: true } as never)).toBe('{"a":1}');
    expect(() => write({ b: 'x' } as never)).toThrow(/a/);
  });

  it('refuses a union it cannot write one way', () => {
    const Either = Type.Union([Type.Object({ a: Type.String() }), Type.Object({ b: Type.Number() })]);
    expect(() => wireSchema(Either)).toThrow(/union/);
  });
});

describe('error bodies', () => {
  it('are the error envelope, details only when there are some', () => {
    const details = [
      { parameter: 'limit', message: 'must be an integer from 1 to 1000' },
      { entitlement: 'assets:read' },
    ];
    const refused = new ApiError(400, 'invalid_parameter', details);
    expect(errorBody(refused, 'r1')).toBe(
      JSON.stringify({
        data: null,
        error: { status: 400, code: 'invalid_parameter', message: refused.message, details },
        meta: { requestId: 'r1' },
      }),
    );
    const failed = new ApiError(500, 'internal_error');
    expect(JSON.parse(errorBody(failed, 'r2'))).toEqual({
      data: null,
      error: { status: 500, code: 'internal_error', message: 'An unexpected error occurred.' },
      meta: { requestId: 'r2' },
    });
  });
});

describe('prepared bodies', () => {
  const prepare = preparer(GoldLatestResponse);
  const gold = examples.goldLatest.data;
  const meta = { count: gold.length, quote: 'DZD' as const, unit: 'gram' as const };

  it('hold the request id between their halves, and next as given', () => {
    const page = prepare(gold, meta, 'abc');
    const body = bodyFor(page, 'req_1-x').toString();
    expect(body).toBe(JSON.stringify({ data: gold, meta: { requestId: 'req_1-x', ...meta } }));
    expect(page.next).toBe('abc');
    expect(page.etag).toMatch(/^W\/"/);
  });

  it('split at another marker when the data holds the first one', () => {
    const Schema = Type.Object({
      data: Type.Array(Type.String()),
      meta: Type.Object({ requestId: Type.String() }),
    });
    const data = [REQUEST_ID_MARKER, `${REQUEST_ID_MARKER}1`];
    const body = bodyFor(preparer(Schema)(data, {}), 'id42').toString();
    expect(JSON.parse(body)).toEqual({ data, meta: { requestId: 'id42' } });
  });
});
