/**
 * Strict query validation (decisions §6), compiled from the route's TypeBox
 * schema: it is the route's Fastify validator (operation.ts) and the raw
 * writer's, one function. It reports every broken rule at once, each with the
 * parameter name and the schema's `errorMessage`, returns typed values (`limit`
 * as an integer) and fills in the schema's `default` for an absent parameter,
 * so handlers never restate a default.
 *
 * Why not Ajv's coercion: it would accept `limit=1e2` or `limit=+10`, and its
 * messages name JSON pointers rather than parameters.
 */
import { FormatRegistry, type TObject, type TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { parseDate } from '../../domain/dates.js';
import type { ErrorDetail } from '../errors.js';

// TypeBox fails every value of a format it does not know: register the one our query schemas use.
if (!FormatRegistry.Has('date')) FormatRegistry.Set('date', (value) => parseDate(value) !== null);

const PLAIN_INTEGER = /^(?:0|[1-9]\d{0,15})$/;

interface PropertyRule {
  integer: boolean;
  message: string;
  check: (value: unknown) => boolean;
}

export type Refinement<T> = (value: T, problems: ErrorDetail[]) => void;

export class QueryValidationError extends Error {
  constructor(readonly details: ErrorDetail[]) {
    super('invalid query');
  }
}

export type QueryResult<T> = { value: T } | { error: QueryValidationError };

export function compileQuery<T>(schema: TObject, refine?: Refinement<T>) {
  const rules = new Map<string, PropertyRule>();
  const defaults: Array<[string, unknown]> = [];
  for (const [name, prop] of Object.entries(schema.properties) as [string, TSchema][]) {
    const compiled = TypeCompiler.Compile(prop);
    rules.set(name, {
      integer: prop.type === 'integer',
      message: (prop as { errorMessage?: string }).errorMessage ?? 'is invalid',
      check: (v) => compiled.Check(v),
    });
    if (prop.default !== undefined) defaults.push([name, prop.default]);
  }
  // Routes that take no parameters ignore a query string (decisions §6); one that
  // took none before keeps ignoring the others when it gains one (decisions 123).
  const ignoresQuery = rules.size === 0 && schema.additionalProperties !== false;
  const ignoresOthers = schema.additionalProperties === true;

  const validate = (raw: Record<string, unknown> | null | undefined): QueryResult<T> => {
    if (ignoresQuery) return { value: {} as T };
    const problems: ErrorDetail[] = [];
    const value: Record<string, unknown> = {};
    if (raw) {
      for (const name of Object.keys(raw)) {
        const given = raw[name];
        const rule = rules.get(name);
        if (!rule) {
          if (!ignoresOthers) problems.push({ parameter: name, message: 'is not a supported parameter' });
        } else if (Array.isArray(given)) {
          problems.push({ parameter: name, message: 'must not be repeated' });
        } else if (given === '' || given === undefined) {
          problems.push({ parameter: name, message: 'must not be empty' });
        } else {
          const text = String(given);
          const candidate = rule.integer ? (PLAIN_INTEGER.test(text) ? Number(text) : text) : text;
          if (rule.check(candidate)) value[name] = candidate;
          else problems.push({ parameter: name, message: rule.message });
        }
      }
    }
    for (const name of schema.required ?? []) {
      if (!raw || !Object.hasOwn(raw, name)) problems.push({ parameter: name, message: 'is required' });
    }
    // A default stands in for an absent parameter only: a broken one stays a problem.
    for (const [name, fallback] of defaults) {
      if (!raw || !Object.hasOwn(raw, name)) value[name] = fallback;
    }
    // Cross-field rules run only on fields that passed their own rule.
    refine?.(value as T, problems);
    if (problems.length > 0) return { error: new QueryValidationError(problems) };
    return { value: value as T };
  };
  if (refine) return validate;
  // Without a refinement (which may read the clock) a request without a query
  // always gets the same result: judged once and frozen, so that nothing
  // downstream can change what the next request gets.
  let absent: QueryResult<T> | undefined;
  return (raw: Record<string, unknown> | null | undefined): QueryResult<T> => {
    if (raw) for (const _ in raw) return validate(raw);
    if (absent === undefined) {
      const judged = validate(null);
      absent = Object.freeze('value' in judged ? { value: Object.freeze(judged.value) } : judged);
    }
    return absent;
  };
}
