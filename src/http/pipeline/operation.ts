/**
 * What a /v1 operation is: its schema (which documents it, types its query and
 * compiles its validator), the entitlement it needs, and its answer. Route
 * files (http/operations/) each define one with `operation()`; the pipeline
 * (decide.ts) runs them all the same way, and plugins/pipeline.ts mounts them.
 *
 * An operation returns an outcome, never an HTTP error: the pipeline turns
 * `{ notFound }` into the 404 of the specification.
 */
import { type TObject, type TSchema, Type } from '@sinclair/typebox';
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
  schema: FastifySchema & {
    querystring: S;
    operationId: string;
    'x-entitlement'?: string;
    /** The entitlement that replaces it when `at` is given (decisions 123), for /llms.txt and agents. */
    'x-entitlement-at'?: string;
  };
  /** Cross-field rules, run once each field passed its own (decisions §6). */
  refine?: Refinement<Q>;
  entitlement: (query: Q) => Entitlement;
  /** Answers CSV too, as `Accept` asks (decisions §12: the history pages). */
  csv?: boolean;
  /**
   * The answer when it is already prepared (it depends only on the data
   * snapshot and the validated query), without I/O; undefined when `answer`
   * has work to do: the pipeline then asks nothing of the store (decide.ts).
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
  // Every property named, in one order, the optional ones as undefined: every
  // operation then has one hidden class, and the pipeline's reads of `validate`,
  // `ready` or `entitlement` stay monomorphic however many operations a server
  // has answered. Spread from each route's spec, they had one class per set of
  // optional properties, and a server that had answered the other operations
  // spent about 15 % more CPU in the pipeline per /v1/rates/latest answer
  // (measured when the choice was made, docs/performance-notes.md).
  const op: Operation<QueryOf<S> & Extra> = {
    url: spec.url,
    schema: spec.schema,
    refine: spec.refine,
    entitlement: spec.entitlement,
    csv: spec.csv,
    ready: spec.ready,
    answer: spec.answer,
    headers: spec.headers,
    validate: compileQuery<QueryOf<S> & Extra>(spec.schema.querystring, spec.refine),
    serialize: envelopeWriter(spec.schema),
  };
  return op;
}

export interface AliasSpec {
  url: string;
  operationId: string;
  summary: string;
  description: string;
  /** The day it was deprecated, as epoch milliseconds. */
  since: number;
  /** The day after which it may stop answering (RFC 8594 `Sunset`), as epoch milliseconds. */
  sunset: number;
}

/**
 * The headers the alias adds, declared on its responses (docs/decisions.md 48,
 * 63): on every answer of the pipeline (http/pipeline/decide.ts), refusals and 304s
 * included. Not on the 414 (answered before any route) nor the 500 (decisions
 * 48: X-Request-Id only; one from the error handler has none of them); on the
 * 503 only when the pipeline answered it, not a stopping server's.
 */
function aliasHeaders(deprecation: string, sunset: string, successor: string) {
  return {
    Deprecation: Type.String({
      description: `RFC 9745: the day this operation was deprecated, \`@\` and epoch seconds (\`${deprecation}\`).`,
      examples: [deprecation],
    }),
    Sunset: Type.String({
      description: `RFC 8594: the HTTP-date after which this alias may stop answering (\`${sunset}\`); move to the successor before.`,
      examples: [sunset],
    }),
    Link: Type.String({
      description: `\`${successor}\` (RFC 8288), after a \`rel="next"\` link on a page with a next one.`,
      examples: [successor],
    }),
  };
}

const WITHOUT_ALIAS_HEADERS = new Set([414, 500]);
const SOMETIMES_ALIAS_HEADERS = new Set([503]);

/** The operation's responses, each with the alias's headers (the 200's Link keeps its description). */
function withAliasHeaders(
  response: Record<number, TSchema> | undefined,
  headers: ReturnType<typeof aliasHeaders>,
): Record<number, TSchema> | undefined {
  if (!response) return response;
  const out: Record<number, TSchema> = {};
  for (const [key, schema] of Object.entries(response)) {
    const status = Number(key);
    const own = (schema as { headers?: Record<string, TSchema> }).headers;
    let added: Record<string, TSchema> = headers;
    // `headerOptional`: our annotation for `required: false` (openapi.ts, cleanDocument).
    if (SOMETIMES_ALIAS_HEADERS.has(status))
      added = Object.fromEntries(
        Object.entries(headers).map(([n, h]) => [n, { ...h, headerOptional: true }]),
      );
    out[status] = WITHOUT_ALIAS_HEADERS.has(status)
      ? schema
      : ({ ...schema, headers: { ...added, ...own } } as TSchema);
  }
  return out;
}

/**
 * The same operation under another path, deprecated: RFC 9745's `Deprecation`,
 * RFC 8594's `Sunset` and a `successor-version` link on every answer, beside a
 * next-page link if there is one (docs/decisions.md 37, 39, 63). No `ready`:
 * old clients only.
 */
export function deprecatedAlias<Q>(op: Operation<Q>, alias: AliasSpec): Operation<Q> {
  const deprecation = `@${alias.since / 1000}`;
  // An IMF-fixdate (RFC 9110 §5.6.7): `Wed, 30 Jun 2027 00:00:00 GMT`.
  const sunset = new Date(alias.sunset).toUTCString();
  const successor = `</v1${op.url}>; rel="successor-version"`;
  const { url, operationId, summary, description } = alias;
  const response = withAliasHeaders(
    op.schema.response as Record<number, TSchema> | undefined,
    aliasHeaders(deprecation, sunset, successor),
  );
  return {
    ...op,
    url,
    schema: { ...op.schema, operationId, summary, description, deprecated: true, response },
    ready: undefined,
    headers: (set) => {
      set.push('deprecation', deprecation, 'sunset', sunset);
      // A page with a next one already links to it (decisions 37): both links go out.
      for (let i = 0; i < set.length; i += 2) {
        if (set[i] === 'link') {
          if (!set[i + 1]!.includes(successor)) set[i + 1] = `${set[i + 1]}, ${successor}`;
          return;
        }
      }
      set.push('link', successor);
    },
  };
}
