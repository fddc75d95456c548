/**
 * The admin routes' validators, compiled from their TypeBox schemas
 * (schemas/admin.ts): queries as on /v1 (http/pipeline/query.ts: strict, every
 * problem named by its parameter), bodies and path parameters with the check
 * the operations apply too (schemas/admin-check.ts), each problem named by its
 * field. A refusal is an ApiError, answered by the admin error handler
 * (http/admin/errors.ts) as a 400 listing every problem.
 */
import type { TObject, TSchema } from '@sinclair/typebox';
import { check } from '../../schemas/admin-check.js';
import { ApiError, invalidParameters } from '../errors.js';
import { compileQuery } from '../pipeline/query.js';

type Validator = (data: unknown) => { value: unknown } | { error: Error };

/** A body or path validator: the value, or a 400 naming every field that breaks a rule (one line each). */
export function compileObject(schema: TSchema, code: 'invalid_request' | 'not_found'): Validator {
  return (given) => {
    // A body-less POST (a roll or a rotation with every default) is an empty
    // object; Fastify gives such a request's body as null.
    const checked = check(schema, given);
    if (checked.ok) return { value: checked.value };
    if (code === 'not_found') return { error: new ApiError(404, 'not_found') };
    const details = checked.problems.map((p) => ({ parameter: p.field || 'body', message: p.message }));
    return { error: new ApiError(400, 'invalid_request', details) };
  };
}

/** Fastify's validatorCompiler for the admin routes. */
export function adminValidator({ schema, httpPart }: { schema: TSchema; httpPart?: string }): Validator {
  if (httpPart === 'querystring') {
    const validate = compileQuery(schema as TObject);
    return (data) => {
      const result = validate(data as Record<string, unknown>);
      return 'error' in result ? { error: invalidParameters(result.error.details) } : result;
    };
  }
  // Headers are read where they are used (the Idempotency-Key: http/admin/idempotency.ts).
  if (httpPart === 'headers') return (data) => ({ value: data });
  // An id of no resource is a 404, whatever its form.
  if (httpPart === 'params') return compileObject(schema, 'not_found');
  return compileObject(schema, 'invalid_request');
}
