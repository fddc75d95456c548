/**
 * What every admin request is held to before its route's validator, in one
 * place (docs/decisions.md 89): no string of its path parameters, query or
 * JSON body holds a control character (U+0000 to U+001F, U+007F) or a
 * bidirectional control (U+202A to U+202E, U+2066 to U+2069), with the
 * sentence of schemas/admin-check.ts (the CLI says the same of its
 * arguments); and a body comes uncompressed: a `Content-Encoding` other than
 * `identity` is a 415, before the body is read. The reporter API (/report)
 * is held to the same rules on either listener. A data import's body is a
 * file, judged by the import's own record rules.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { forbiddenCharacters } from '../../schemas/admin-check.js';
import { ApiError, invalidParameters } from '../errors.js';

function refusal(request: FastifyRequest): ApiError | null {
  // An unknown path is a 404 whatever it holds (http/admin/errors.ts).
  if (request.is404) return null;
  const inPath = forbiddenCharacters(request.params);
  if (inPath)
    return new ApiError(400, 'invalid_request', [{ parameter: inPath.field, message: inPath.message }]);
  const inQuery = forbiddenCharacters(request.query);
  if (inQuery) return invalidParameters([{ parameter: inQuery.field, message: inQuery.message }]);
  if (typeof request.body === 'string') return null;
  const inBody = forbiddenCharacters(request.body);
  if (inBody)
    return new ApiError(400, 'invalid_request', [
      { parameter: inBody.field || 'body', message: inBody.message },
    ]);
  return null;
}

export function adminInputRules(app: FastifyInstance): void {
  app.addHook('preParsing', async (request, _reply, payload) => {
    const encoding = request.headers['content-encoding'];
    if (request.method !== 'GET' && encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') {
      throw new ApiError(
        415,
        'unsupported_media_type',
        undefined,
        undefined,
        'This API takes bodies uncompressed: send it without Content-Encoding.',
      );
    }
    return payload;
  });
  app.addHook('preValidation', async (request) => {
    const refused = refusal(request);
    if (refused) throw refused;
  });
}
