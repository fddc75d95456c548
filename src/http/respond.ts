/**
 * Envelope assembly. Bodies that depend only on the data (the latest rates of a
 * source, gold latest, the asset directory) are prepared once per snapshot as
 * UTF-8 bytes, split around the request id; a request then writes its id between
 * the two halves. Other bodies join pre-serialised records and write `meta`.
 * Request ids are [A-Za-z0-9_-] (app.ts), so they need no JSON escaping.
 */
import type { FastifyReply } from 'fastify';

export const JSON_TYPE = 'application/json; charset=utf-8';

/** A body prepared once: `head` + requestId + `tail`. */
export interface Prepared {
  head: Buffer;
  tail: Buffer;
}

/** `metaRest` is the JSON of the meta members after `requestId`, without braces (may be ''). */
export function prepare(dataJson: string, metaRest: string): Prepared {
  return {
    head: Buffer.from(`{"data":${dataJson},"meta":{"requestId":"`),
    tail: Buffer.from(`"${metaRest === '' ? '' : `,${metaRest}`}}}`),
  };
}

export function sendPrepared(reply: FastifyReply, body: Prepared, requestId: string): Buffer {
  reply.header('content-type', JSON_TYPE);
  return Buffer.concat([body.head, Buffer.from(requestId, 'latin1'), body.tail]);
}

export function envelope(reply: FastifyReply, requestId: string, dataJson: string, metaRest: string): Buffer {
  reply.header('content-type', JSON_TYPE);
  return Buffer.from(
    `{"data":${dataJson},"meta":{"requestId":"${requestId}"${metaRest === '' ? '' : `,${metaRest}`}}}`,
  );
}

/** For bodies built as objects (cold paths such as /v1/me and the health checks). */
export function envelopeOf(reply: FastifyReply, requestId: string, data: unknown, meta: object = {}): string {
  reply.header('content-type', JSON_TYPE);
  return JSON.stringify({ data, meta: { requestId, ...meta } });
}

export function dedupe(list: string): string[] {
  return [...new Set(list.split(','))];
}
