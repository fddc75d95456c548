/**
 * Named components for code generators (docs/decisions.md 64). A schema of
 * src/schemas annotated `component: 'Name'` is documented once, as
 * `#/components/schemas/Name`, and referred to by `$ref` wherever it is used,
 * so that a generator, whatever its language, names the type after it
 * (`Asset`, `LatestRate`, `Error`…) rather than `Def0`, or once per operation.
 * The annotation changes nothing else: validation and serialization read the
 * schemas as before. (An `$id` would do for the document, but not for
 * fast-json-stringify, which refuses a schema holding one `$id` twice next to
 * an `anyOf`, as /status holds `FamilyFreshness` four times.)
 *
 * - `documentedRoute`, @fastify/swagger's `transform`, gives the document a copy
 *   of each route schema whose annotations are `$id`s: @fastify/swagger hoists
 *   the schemas with an `$id`, its `refResolver` naming each after it (it would
 *   say `def-N`). It leaves out the `$id` of a whole response body (the error
 *   envelope, `Error`), so such a body is nested under a one-member `allOf`.
 * - `finishComponents` writes such a body's schema as the bare `$ref`, its
 *   `x-error-codes` on the Response Object, and every union the way Scalar's
 *   reference (/docs/) accepts a schema reached through a `$ref`, with a
 *   `type` on every schema: a union of constants is one `enum`, `X | null` is
 *   `type: [X, 'null']` (test/http/openapi-document.test.ts checks every
 *   schema of the document).
 */
import type { FastifySchema } from 'fastify';

/** A schema or any other object of the document, read loosely. */
type Node = Record<string, unknown>;

const COMPONENT_REF = '#/components/schemas/';
const NAME = /^[A-Z][A-Za-z0-9]*$/;

const isNode = (value: unknown): value is Node =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** @fastify/swagger's `refResolver`: a component is named after its schema's `$id`. */
export const componentNames = {
  buildLocalReference(json: Node): string {
    const id = json.$id;
    if (typeof id !== 'string' || !NAME.test(id)) {
      throw new Error(`a schema's $id names its component: ${JSON.stringify(id)} is not a PascalCase name`);
    }
    return id;
  },
};

/** The keys of a response or body schema that are about the response, not its body. */
const RESPONSE_KEYS = ['description', 'headers', 'examples', 'csvMedia', 'x-error-codes'] as const;

/**
 * A copy of `node` for the document: each `component` annotation of a schema
 * is its `$id`, or is left out (`ids` false: the parameters, written inline).
 */
function withIds(node: unknown, ids = true): unknown {
  if (Array.isArray(node)) return node.map((item) => withIds(item, ids));
  if (!isNode(node)) return node;
  const out: Node = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'component' && typeof value === 'string') {
      if (ids) out.$id = value;
    } else out[key] = key === 'examples' || key === 'example' ? value : withIds(value, ids);
  }
  return out;
}

/** A response or body whose schema has an `$id`, nested so that @fastify/swagger hoists it. */
function nestBody(schema: unknown): unknown {
  if (!isNode(schema) || typeof schema.$id !== 'string') return schema;
  const outer: Node = {};
  const body: Node = { ...schema };
  for (const key of RESPONSE_KEYS) {
    if (key in body) outer[key] = body[key];
    delete body[key];
  }
  return { ...outer, allOf: [body] };
}

/**
 * The `$id`s of a document, each with the first schema seen under it: two
 * different schemas under one name would be documented as one (the resolver
 * keeps the first), so that is an error.
 */
const seenIds = new WeakMap<object, Map<string, string>>();

function checkIds(node: unknown, seen: Map<string, string>): void {
  if (Array.isArray(node)) {
    for (const item of node) checkIds(item, seen);
    return;
  }
  if (!isNode(node)) return;
  if (typeof node.$id === 'string') {
    const text = JSON.stringify(node);
    const first = seen.get(node.$id);
    if (first === undefined) seen.set(node.$id, text);
    else if (first !== text) throw new Error(`two different schemas have the $id ${node.$id}`);
  }
  for (const [key, value] of Object.entries(node)) if (key !== 'examples') checkIds(value, seen);
}

/** @fastify/swagger's `transform`: a route as the document shows it. */
export function documentedRoute({
  schema,
  url,
  openapiObject,
}: {
  schema: FastifySchema;
  url: string;
  openapiObject?: object;
}): { schema: FastifySchema; url: string } {
  if (!schema) return { schema, url };
  const out: Node = { ...schema };
  for (const key of ['querystring', 'params', 'headers'] as const)
    if (schema[key] !== undefined) out[key] = withIds(schema[key], false);
  if (isNode(schema.response)) {
    out.response = Object.fromEntries(
      Object.entries(schema.response).map(([status, value]) => [status, nestBody(withIds(value))]),
    );
  }
  if (schema.body !== undefined) out.body = nestBody(withIds(schema.body));
  if (openapiObject) {
    const seen = seenIds.get(openapiObject) ?? new Map<string, string>();
    seenIds.set(openapiObject, seen);
    checkIds([out.response, out.body], seen);
  }
  return { schema: out as FastifySchema, url };
}

// ---- Finishing the document -------------------------------------------------

/** The keywords whose value is a schema, and those whose value is a list or a map of schemas. */
const SCHEMA = ['items', 'not', 'contains', 'propertyNames', 'contentSchema', 'if', 'then', 'else'];
const SCHEMA_LIST = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SCHEMA_MAP = ['properties', 'patternProperties', '$defs', 'dependentSchemas'];

/** Calls `visit` on every subschema of `schema`, innermost first, and on `schema` last. */
export function eachSchema(schema: unknown, visit: (schema: Node) => void): void {
  if (!isNode(schema)) return;
  for (const key of SCHEMA) eachSchema(schema[key], visit);
  if (isNode(schema.additionalProperties)) eachSchema(schema.additionalProperties, visit);
  for (const key of SCHEMA_LIST) {
    const list = schema[key];
    if (Array.isArray(list)) for (const item of list) eachSchema(item, visit);
  }
  for (const key of SCHEMA_MAP) {
    const map = schema[key];
    if (isNode(map)) for (const item of Object.values(map)) eachSchema(item, visit);
  }
  visit(schema);
}

/**
 * Every schema position of a document outside its components, in its paths
 * and its webhooks: media types, parameters, headers.
 */
export function documentSchemas(doc: Node): Node[] {
  const out: Node[] = [];
  const media = (content: unknown) => {
    if (isNode(content))
      for (const m of Object.values(content)) if (isNode(m) && isNode(m.schema)) out.push(m);
  };
  const items = [doc.paths, doc.webhooks].flatMap((map) => (isNode(map) ? Object.values(map) : []));
  for (const item of items) {
    if (!isNode(item)) continue;
    for (const op of Object.values(item)) {
      if (!isNode(op)) continue;
      for (const p of Array.isArray(op.parameters) ? op.parameters : []) if (isNode(p?.schema)) out.push(p);
      if (isNode(op.requestBody)) media(op.requestBody.content);
      for (const response of Object.values(isNode(op.responses) ? op.responses : {})) {
        if (!isNode(response)) continue;
        media(response.content);
        for (const h of Object.values(isNode(response.headers) ? response.headers : {}))
          if (isNode(h) && isNode(h.schema)) out.push(h);
      }
    }
  }
  return out;
}

const typesOf = (schema: Node): unknown[] | undefined =>
  typeof schema.type === 'string' ? [schema.type] : Array.isArray(schema.type) ? schema.type : undefined;

const isNull = (schema: unknown) =>
  isNode(schema) && schema.type === 'null' && Object.keys(schema).every((k) => k === 'type');

/**
 * One union rewritten with a `type` (see the module comment), in place:
 * `anyOf` of constants of one type is one `enum`; `anyOf` of a schema and
 * `null` is that schema with `null` added to its `type` (and to its `enum`),
 * a `$ref` to a scalar component being written out. Anything else is left
 * as it is, and the document's test names it.
 */
function withType(schema: Node, components: Record<string, unknown>): void {
  const members = schema.anyOf;
  if (!Array.isArray(members) || members.length < 2 || 'type' in schema) return;
  const constants = members.every(
    (m) => isNode(m) && typeof m.type === 'string' && Array.isArray(m.enum) && Object.keys(m).length === 2,
  );
  const types = new Set(members.map((m) => (m as Node).type));
  if (constants && types.size === 1) {
    delete schema.anyOf;
    schema.type = [...types][0];
    schema.enum = members.flatMap((m) => (m as Node).enum as unknown[]);
    return;
  }
  if (members.length !== 2 || !members.some(isNull)) return;
  let other = members.find((m) => !isNull(m)) as Node;
  if (typeof other.$ref === 'string' && other.$ref.startsWith(COMPONENT_REF)) {
    const target = components[other.$ref.slice(COMPONENT_REF.length)];
    if (!isNode(target)) return;
    eachSchema(target, (s) => withType(s, components));
    if (target.type === 'object' || target.type === 'array') return;
    other = target;
  }
  const otherTypes = typesOf(other);
  if (!otherTypes || 'anyOf' in other || 'oneOf' in other || 'allOf' in other) return;
  delete schema.anyOf;
  const description = schema.description;
  Object.assign(schema, { ...other, ...schema, type: [...otherTypes, 'null'] });
  if (description === undefined && other.description !== undefined) schema.description = other.description;
  if (Array.isArray(other.enum)) schema.enum = [...other.enum, null];
}

/**
 * The document's last step (docs/decisions.md 64): a response body documented
 * through `documentedRoute` becomes the bare `$ref` to its component, its
 * `x-error-codes` moving to the Response Object; every union gets a `type`.
 */
export function finishComponents<T>(doc: T): T {
  const root = doc as Node;
  const components =
    isNode(root.components) && isNode(root.components.schemas) ? root.components.schemas : {};
  for (const item of Object.values(isNode(root.paths) ? root.paths : {})) {
    if (!isNode(item)) continue;
    for (const op of Object.values(item)) {
      if (!isNode(op)) continue;
      const bodies: Node[] = [];
      if (isNode(op.requestBody)) bodies.push(op.requestBody);
      for (const r of Object.values(isNode(op.responses) ? op.responses : {})) if (isNode(r)) bodies.push(r);
      for (const holder of bodies) {
        for (const media of Object.values(isNode(holder.content) ? holder.content : {})) {
          if (!isNode(media) || !isNode(media.schema)) continue;
          const { 'x-error-codes': codes, ...schema } = media.schema;
          if (codes !== undefined) holder['x-error-codes'] = codes;
          const nested = schema.allOf;
          const rest = Object.keys(schema).filter((k) => k !== 'allOf' && k !== 'description');
          media.schema =
            Array.isArray(nested) && nested.length === 1 && isNode(nested[0]) && rest.length === 0
              ? nested[0]
              : schema;
        }
      }
    }
  }
  const visit = (s: Node) => withType(s, components);
  for (const schema of Object.values(components)) eachSchema(schema, visit);
  for (const holder of documentSchemas(root)) eachSchema(holder.schema, visit);
  return doc;
}
