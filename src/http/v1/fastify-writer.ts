/**
 * Writes the pipeline's answer on Fastify's reply: the general writer, for
 * every /v1 request the raw writer leaves (raw-writer.ts). Fastify adds
 * Content-Length and X-Request-Id (plugins/transport.ts) and drops the body of
 * a HEAD.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AccessContext } from '../../access/authenticator.js';
import type { LimitDecision } from '../../limits/limiter.js';
import { encode } from '../compression.js';
import { bodyFor } from '../respond.js';
import type { Answer } from './decide.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The key and grant of a /v1 request, once known (the access line names them). */
    access: AccessContext | null;
    /** The limits this request consumed a unit from, for a give-back if sending fails. */
    limits: LimitDecision | null;
  }
}

export function writeReply(request: FastifyRequest, reply: FastifyReply, answer: Answer): FastifyReply {
  // The access line names the key; a failure while sending gives the unit back (plugins/errors.ts).
  request.access = answer.access;
  request.limits = answer.consumed;
  const { headers } = answer;
  for (let i = 0; i < headers.length; i += 2) reply.header(headers[i]!, headers[i + 1]!);
  reply.code(answer.status);
  const { body } = answer;
  if (body === null) return reply.send();
  const bytes = typeof body === 'string' ? body : bodyFor(body, request.id);
  // Vary is the pipeline's: encode() only picks the coding (RFC 9110 §12.5.3).
  return reply.send(answer.compressible ? encode(request, reply, bytes, null) : bytes);
}
