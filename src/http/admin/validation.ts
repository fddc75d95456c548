/**
 * The admin routes' validators, compiled from their TypeBox schemas
 * (schemas/admin.ts): queries as on /v1 (http/v1/query.ts: strict, every
 * problem named by its parameter), bodies and path parameters with TypeBox,
 * each problem named by its field. A refusal is an ApiError, answered by the
 * admin error handler (http/admin/errors.ts) as a 400 listing every problem.
 */
import { FormatRegistry, type TObject, type TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { ApiError, type ErrorDetail, invalidParameters } from '../errors.js';
import { compileQuery } from '../v1/query.js';

// TypeBox fails every value of a format it does not know: the ones the admin schemas use.
if (!FormatRegistry.Has('date-time'))
  FormatRegistry.Set(
    'date-time',
    (v) =>
      /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/.test(v) &&
      !Number.isNaN(Date.parse(v)) &&
      new Date(Date.parse(v.slice(0, 10))).toISOString().slice(0, 10) === v.slice(0, 10),
  );
if (!FormatRegistry.Has('email')) FormatRegistry.Set('email', (v) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v));

type Validator = (data: unknown) => { value: unknown } | { error: Error };

/** A sentence for a TypeBox error, from the schema's own annotations where it has them. */
function sentence(error: { schema: TSchema; message: string; value: unknown }): string {
  const s = error.schema as { errorMessage?: string; description?: string; format?: string };
  if (s.errorMessage) return s.errorMessage;
  if (s.format === 'date-time') return 'must be an ISO 8601 date-time such as 2027-01-01T00:00:00Z';
  if (s.format === 'email') return 'must be an email address';
  return error.message.charAt(0).toLowerCase() + error.message.slice(1);
}

/** `/a/b` as `a.b`: the field a body problem names. */
const field = (path: string) => path.replace(/^\//, '').replaceAll('/', '.');

/** A body or path validator: the value, or a 400 naming every field that breaks a rule (one line each). */
export function compileObject(schema: TSchema, code: 'invalid_request' | 'not_found'): Validator {
  const check = TypeCompiler.Compile(schema);
  return (given) => {
    // A body-less POST (a roll or a rotation with every default) is an empty
    // object; Fastify gives such a request's body as null.
    const data = given === undefined || given === null ? {} : given;
    if (check.Check(data)) return { value: data };
    if (code === 'not_found') return { error: new ApiError(404, 'not_found') };
    const details: ErrorDetail[] = [];
    const seen = new Set<string>();
    for (const e of check.Errors(data)) {
      const name = field(e.path);
      if (seen.has(name)) continue; // a union reports each branch; the first sentence is enough
      seen.add(name);
      // A property the schema does not name: say so rather than "unexpected property".
      const message = e.message.startsWith('Unexpected property')
        ? 'is not a field of this operation'
        : sentence(e);
      details.push({ parameter: name === '' ? 'body' : name, message });
    }
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
