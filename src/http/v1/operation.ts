/**
 * What a /v1 operation is: its schema (which documents it, types its query and
 * compiles its validator), the entitlement it needs, and its answer. Route
 * files (http/routes/v1/) each define one with `operation()`; the pipeline
 * (decide.ts) runs them all the same way, and register.ts mounts them.
 *
 * An operation returns an outcome, never an HTTP error: the pipeline turns
 * `{ notFound }` into the 404 of the specification.
 */
import type { TObject, TSchema } from '@sinclair/typebox';
import type { FastifySchema } from 'fastify';
import type { AccessContext } from '../../access/authenticator.js';
import type { Entitlement } from '../../domain/scopes.js';
import type { LimitDecision } from '../../limits/limiter.js';
import type { QueryOf } from '../../schemas/query.js';
import type { PreparedAnswer } from '../respond.js';
import { serializer } from '../serialize.js';
import { compileQuery, type QueryResult, type Refinement } from './query.js';

/** What an operation answers once the request passed every step of the pipeline. */
export type Outcome =
  /** A body prepared once per data version (respond.ts), with how long it may be reused. */
  | PreparedAnswer
  /** A body built for this request (`/v1/me`), in the envelope. */
  | { data: unknown; meta?: Record<string, unknown> }
  /** The resource does not exist: 404 `not_found` with this message. */
  | { notFound: string };

export interface AnswerContext {
  access: AccessContext;
  /** The limits after this request's unit was consumed. */
  limits: LimitDecision;
  /** The request's Accept asks for CSV (only on operations with `csv`). */
  csv: boolean;
}

export interface OperationSpec<S extends TObject, Q> {
  /** The path under /v1. */
  url: string;
  /** The route schema (OpenAPI); `querystring` is the query the operation takes. */
  schema: FastifySchema & { querystring: S; operationId: string; 'x-entitlement'?: string };
  /** Cross-field rules, run once each field passed its own (decisions §6). */
  refine?: Refinement<Q>;
  entitlement: (query: Q) => Entitlement;
  /** Answers CSV too, as `Accept` asks (decisions §12: the history pages). */
  csv?: boolean;
  /**
   * The answer when it is already prepared (it depends only on the data
   * snapshot and the validated query), without I/O; undefined when `answer`
   * has work to do. The raw writer serves only such answers (raw-writer.ts).
   */
  ready?: (query: Q, csv: boolean) => PreparedAnswer | undefined;
  answer: (query: Q, context: AnswerContext) => Outcome | Promise<Outcome>;
  /** Headers of every answer of this operation, given the ones already set (the deprecated alias). */
  headers?: (set: string[]) => void;
}

/** An operation ready to serve: its validator compiled from its schema. */
export interface Operation<Q = unknown> extends OperationSpec<TObject, Q> {
  validate: (raw: Record<string, unknown> | null | undefined) => QueryResult<Q>;
  /** Writes a `{ data, meta }` envelope with the serializer of its 200 schema (http/serialize.ts). */
  serialize: (envelope: { data: unknown; meta: Record<string, unknown> }) => string;
}

/** The serializer of the operation's 200 schema, compiled when first needed (few operations answer `{ data }`). */
function envelopeWriter(schema: FastifySchema): (envelope: unknown) => string {
  let write: ((envelope: unknown) => string) | undefined;
  return (envelope) => {
    if (write === undefined) {
      const ok = (schema.response as Record<number, TSchema> | undefined)?.[200];
      if (ok === undefined) throw new Error('serialize: the operation has no 200 schema');
      write = serializer(ok) as (envelope: unknown) => string;
    }
    return write(envelope);
  };
}

/**
 * Defines an operation; `Extra` is what its refinement adds to the validated
 * query (the history window).
 */
export function operation<S extends TObject, Extra = unknown>(
  spec: OperationSpec<S, QueryOf<S> & Extra>,
): Operation<QueryOf<S> & Extra> {
  return {
    ...spec,
    validate: compileQuery<QueryOf<S> & Extra>(spec.schema.querystring, spec.refine),
    serialize: envelopeWriter(spec.schema),
  } as Operation<QueryOf<S> & Extra>;
}

export interface AliasSpec {
  url: string;
  operationId: string;
  summary: string;
  description: string;
  /** The day it was deprecated, as epoch milliseconds. */
  since: number;
}

/**
 * The same operation under another path, deprecated: RFC 9745's `Deprecation`
 * and a `successor-version` link on every answer, beside a next-page link if
 * there is one. Left to the general writer (no `ready`): old clients only.
 */
export function deprecatedAlias<Q>(op: Operation<Q>, alias: AliasSpec): Operation<Q> {
  const deprecation = `@${alias.since / 1000}`;
  const successor = `</v1${op.url}>; rel="successor-version"`;
  const { url, operationId, summary, description } = alias;
  return {
    ...op,
    url,
    schema: { ...op.schema, operationId, summary, description, deprecated: true },
    ready: undefined,
    headers: (set) => {
      set.push('deprecation', deprecation);
      // A page with a next one already links to it (decisions 37): both links go out.
      for (let i = 0; i < set.length; i += 2) {
        if (set[i] === 'link') {
          set[i + 1] = `${set[i + 1]}, ${successor}`;
          return;
        }
      }
      set.push('link', successor);
    },
  };
}
