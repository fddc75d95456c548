/**
 * Bytes from the schemas: every /v1 body is written by a serializer that
 * fast-json-stringify compiles from the response schema the OpenAPI document
 * shows (src/schemas/), so the members, their order and their types are the
 * schema's. Values come from the snapshot and the store as typed objects.
 *
 * The serializer is compiled from a plain copy of the schema reduced to what
 * it writes: a union of string literals is a string, a union with null is
 * `nullable`, annotations (pattern, format, examples) are dropped. Only members
 * the schema declares are written; a required one that is missing throws.
 * Numbers are written as JSON.stringify writes them.
 *
 * A body kept across requests is serialized once with a marker as its
 * `meta.requestId` and split there (prepared.ts): a request writes only its id
 * between the halves.
 */
import type { Static, TObject, TSchema } from '@sinclair/typebox';
import fastJson from 'fast-json-stringify';
import { etagOf, type Prepared } from './prepared.js';

type Wire = Record<string, unknown>;

/** The schema as the serializer needs it: see the module comment. */
export function wireSchema(schema: TSchema): Wire {
  const branches = (schema.anyOf ?? schema.oneOf) as TSchema[] | undefined;
  if (branches !== undefined) {
    const kept = branches.filter((b) => b.type !== 'null');
    const nullable = kept.length < branches.length ? { nullable: true } : {};
    const flat = kept.flatMap((b) => ((b.anyOf ?? b.oneOf) as TSchema[] | undefined) ?? [b]);
    if (flat.every((b) => typeof b.const === 'string')) return { type: 'string', ...nullable };
    if (kept.length === 1) return { ...wireSchema(kept[0]!), ...nullable };
    throw new Error(`serialize: a union of ${JSON.stringify(branches)} has no one serialization`);
  }
  if (typeof schema.const === 'string') return { type: 'string' };
  switch (schema.type) {
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, TSchema>;
      return {
        type: 'object',
        properties: Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, wireSchema(v)])),
        required: (schema.required as string[] | undefined) ?? [],
      };
    }
    case 'array':
      return { type: 'array', items: wireSchema(schema.items as TSchema) };
    case 'string':
    case 'number':
    case 'integer':
    case 'boolean':
    case 'null':
      return { type: schema.type };
    default:
      throw new Error(`serialize: no serialization for the schema ${JSON.stringify(schema)}`);
  }
}

/** The compiled serializer of `schema`. */
export function serializer<S extends TSchema>(schema: S): (value: Static<S>) => string {
  return fastJson(wireSchema(schema) as unknown as Parameters<typeof fastJson>[0]) as (
    value: Static<S>,
  ) => string;
}

/** A response envelope: `data`, and `meta` with the request id. */
export type EnvelopeSchema = TObject<{ data: TSchema; meta: TObject }>;
/** A list may be read-only: the serializer only reads it. */
type DataOf<S extends EnvelopeSchema> = Static<S>['data'] extends (infer T)[]
  ? readonly T[]
  : Static<S>['data'];
type MetaOf<S extends EnvelopeSchema> = Omit<Static<S>['meta'], 'requestId'>;

/**
 * Stands for the request id while a body is serialized: request ids are
 * [A-Za-z0-9_-] (app.ts), so the marker is written as is, and a request's id
 * needs no escaping either.
 */
export const REQUEST_ID_MARKER = 'REQID_MARKER_x7Qp';

/** `json` split around `marker`, which must occur exactly once; undefined otherwise. */
function splitAt(json: string, marker: string): [string, string] | undefined {
  const at = json.indexOf(marker);
  if (at === -1 || json.indexOf(marker, at + 1) !== -1) return undefined;
  return [json.slice(0, at), json.slice(at + marker.length)];
}

/**
 * The maker of prepared bodies of the envelope `schema`: `(data, meta, next)`,
 * `meta` without the request id, `next` the cursor of a page's next page.
 */
export function preparer<S extends EnvelopeSchema>(
  schema: S,
): (data: DataOf<S>, meta: MetaOf<S>, next?: string | null) => Prepared {
  const write = serializer(schema);
  return (data, meta, next) => {
    // Data that happens to hold the marker (an asset's name) gets another one.
    for (let attempt = 0; attempt < 8; attempt++) {
      const marker = attempt === 0 ? REQUEST_ID_MARKER : `${REQUEST_ID_MARKER}${attempt}`;
      const halves = splitAt(write({ data, meta: { requestId: marker, ...meta } } as Static<S>), marker);
      if (halves === undefined) continue;
      const head = Buffer.from(halves[0]);
      const tail = Buffer.from(halves[1]);
      const etag = etagOf(head, tail);
      return next === undefined ? { head, tail, etag } : { head, tail, etag, next };
    }
    throw new Error(`serialize: the body holds every request-id marker tried (${REQUEST_ID_MARKER}…)`);
  };
}
