/**
 * `Idempotency-Key` on every POST and PATCH of the admin API, with Stripe's
 * semantics (docs/decisions.md 58):
 *
 * - the first request under a key claims it (an INSERT on the store's primary
 *   key, so two instances cannot both claim it), runs, and stores its answer,
 *   4xx included, for 24 hours; a 5xx releases the key instead, so a retry runs;
 * - the same key with the same request (method, path and query, and the
 *   SHA-256 of the body's canonical form) replays the stored status and body,
 *   with `Idempotent-Replayed: true`;
 * - the same key with another request is a 409 `idempotency_key_reused`;
 * - a duplicate that arrives while the first still runs waits for it, polling
 *   up to a few seconds, then replays its answer, or answers 409
 *   `idempotency_key_in_progress` with Retry-After: 1.
 *
 * Keys are per admin token: two tokens never see each other's answers. A
 * stored answer is sealed with a key derived from the token that made the
 * request (domain/sealed-answers.ts, decisions 104): the secret a creation
 * answers with is not readable in the store or its backups.
 */
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { answerKey, seal, unseal } from '../../domain/sealed-answers.js';
import { ApiError } from '../errors.js';
import { JSON_TYPE } from '../respond.js';
import { ReceivedFile } from './received-file.js';

export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;
/** How long a duplicate waits for the first request before answering 409 in progress. */
export const IDEMPOTENCY_WAIT_MS = 5_000;
const POLL_MS = 25;
/** 1 to 255 printable ASCII characters (space to tilde). */
const KEY_SYNTAX = /^[\x20-\x7e]{1,255}$/;

export type Claim =
  | { state: 'claimed' }
  | { state: 'in_progress'; fingerprint: string }
  | { state: 'done'; fingerprint: string; status: number; body: string };

/** The store's idempotency records (the operations engineer's Store methods), per actor id. */
export interface IdempotencyRecords {
  claim(actor: string, key: string, fingerprint: string, now: number, ttlMs: number): Promise<Claim>;
  complete(actor: string, key: string, status: number, body: string): Promise<void>;
  release(actor: string, key: string): Promise<void>;
}

/** JSON with object members sorted, so that `{"a":1,"b":2}` and `{"b":2,"a":1}` are one request. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * The request as the key remembers it: method, path and query, and the body
 * (a text body as sent; one received to a file by its SHA-256).
 */
export function fingerprint(method: string, url: string, body: unknown): string {
  const text =
    typeof body === 'string'
      ? body
      : body instanceof ReceivedFile
        ? `sha256:${body.sha256}`
        : canonical(body ?? null);
  return createHash('sha256').update(`${method}\n${url}\n`).update(text).digest('hex');
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set when this request claimed an Idempotency-Key: its answer is stored when sent. */
    idempotency?: { actor: string; key: string; sealKey: Buffer };
  }
}

/** Whether the Idempotency-Key header came on more than one line. */
function sentTwice(rawHeaders: string[]): boolean {
  let lines = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i]!.toLowerCase() === 'idempotency-key') lines++;
  }
  return lines > 1;
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The preHandler of a POST or PATCH: claims the request's key, or answers for
 * it (a replay, 409). `actor` is the admin token's public id, `credential`
 * the token itself, which seals and opens the stored answer.
 */
export function idempotencyGate(records: IdempotencyRecords, now: () => number) {
  return async (
    request: FastifyRequest,
    reply: FastifyReply,
    actor: string,
    credential: string,
  ): Promise<boolean> => {
    const key = request.headers['idempotency-key'];
    if (key === undefined) return false;
    // Node joins a header sent twice into one value (`a, a`): counted on the raw lines instead.
    if (typeof key !== 'string' || !KEY_SYNTAX.test(key) || sentTwice(request.raw.rawHeaders)) {
      throw new ApiError(400, 'invalid_request', [
        { parameter: 'Idempotency-Key', message: 'must be 1 to 255 printable ASCII characters, sent once' },
      ]);
    }
    const print = fingerprint(request.method, request.url, request.body);
    const deadline = now() + IDEMPOTENCY_WAIT_MS;
    const sealKey = answerKey(credential);
    for (;;) {
      const claim = await records.claim(actor, key, print, now(), IDEMPOTENCY_TTL_MS);
      if (claim.state === 'claimed') {
        request.idempotency = { actor, key, sealKey };
        return false;
      }
      if (claim.fingerprint !== print) throw new ApiError(409, 'idempotency_key_reused');
      if (claim.state === 'done') {
        const body = unseal(sealKey, actor, key, claim.body);
        // Only the token that stored it reaches its row: an answer that does not open was altered.
        if (body === null) throw new Error(`idempotency key ${key}: the stored answer does not open`);
        reply
          .code(claim.status)
          .header('content-type', JSON_TYPE)
          .header('idempotent-replayed', 'true')
          .send(body);
        return true;
      }
      if (now() >= deadline) {
        throw new ApiError(409, 'idempotency_key_in_progress', undefined, { 'retry-after': 1 });
      }
      await delay(POLL_MS);
    }
  };
}

/**
 * The onSend hook: stores the answer of a request that claimed a key, or
 * releases the key after a 5xx. Awaited before the answer leaves, so a
 * duplicate sent after it finds the key done.
 */
export function idempotencyRecorder(records: IdempotencyRecords) {
  return async (request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> => {
    const claimed = request.idempotency;
    if (!claimed) return payload;
    request.idempotency = undefined;
    const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString() : '';
    try {
      if (reply.statusCode >= 500) await records.release(claimed.actor, claimed.key);
      else {
        const sealed = seal(claimed.sealKey, claimed.actor, claimed.key, body);
        await records.complete(claimed.actor, claimed.key, reply.statusCode, sealed);
      }
    } catch (err) {
      // Not stored: let a retry run rather than leave the key claimed for a day.
      request.log.error({ err }, 'could not record an idempotent answer; the key is released');
      await records.release(claimed.actor, claimed.key).catch(() => undefined);
    }
    return payload;
  };
}
