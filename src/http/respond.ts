/**
 * Envelope assembly. Data arrays arrive pre-serialised from the snapshot (or are
 * serialised once per page); only `meta` is written per request. Handlers return
 * a string with a JSON content type, which Fastify sends as-is.
 */
import type { FastifyReply } from 'fastify';

export const JSON_TYPE = 'application/json; charset=utf-8';

/** `metaRest` is the JSON of the meta members after `requestId`, without braces (may be ''). */
export function envelope(reply: FastifyReply, requestId: string, dataJson: string, metaRest: string): string {
  reply.header('content-type', JSON_TYPE);
  return `{"data":${dataJson},"meta":{"requestId":${JSON.stringify(requestId)}${metaRest === '' ? '' : `,${metaRest}`}}}`;
}

/** For bodies built as objects (cold paths such as /v1/me and the health checks). */
export function envelopeOf(reply: FastifyReply, requestId: string, data: unknown, meta: object = {}): string {
  reply.header('content-type', JSON_TYPE);
  return JSON.stringify({ data, meta: { requestId, ...meta } });
}

export function dedupe(list: string): string[] {
  return [...new Set(list.split(','))];
}
