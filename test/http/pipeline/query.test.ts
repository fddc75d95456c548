/**
 * The compiled query validator (src/http/pipeline/query.ts): the judgement of an
 * absent query is made once and shared, so it must be one nothing can change.
 */
import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { compileQuery } from '../../../src/http/pipeline/query.js';

const schema = Type.Object(
  {
    source: Type.Optional(
      Type.Union([Type.Literal('parallel'), Type.Literal('official')], { default: 'parallel' }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
  },
  { additionalProperties: false },
);

describe('compileQuery', () => {
  it('judges an absent query once: the same frozen result, with the defaults, for null and {}', () => {
    const validate = compileQuery<{ source: string; limit: number }>(schema);
    const first = validate(null);
    expect(first).toEqual({ value: { source: 'parallel', limit: 50 } });
    expect(validate({})).toBe(first);
    expect(validate(undefined)).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    const { value } = first as { value: Record<string, unknown> };
    expect(Object.isFrozen(value)).toBe(true);
    expect(() => {
      value.limit = 1;
    }).toThrow(TypeError);
    expect(validate(null)).toEqual({ value: { source: 'parallel', limit: 50 } });
  });

  it('judges a given query afresh every time', () => {
    const validate = compileQuery<{ source: string; limit: number }>(schema);
    const a = validate({ limit: '7' });
    const b = validate({ limit: '7' });
    expect(a).toEqual({ value: { source: 'parallel', limit: 7 } });
    expect(b).not.toBe(a);
    expect(Object.isFrozen(a)).toBe(false);
  });

  it('with a refinement (it may read the clock), judges even an absent query every time', () => {
    let calls = 0;
    const validate = compileQuery<{ source: string; limit: number; at?: number }>(schema, (q) => {
      calls++;
      q.at = calls;
    });
    expect(validate(null)).toEqual({ value: { source: 'parallel', limit: 50, at: 1 } });
    expect(validate(null)).toEqual({ value: { source: 'parallel', limit: 50, at: 2 } });
  });
});
