/**
 * The response schema of the bare Fastify reference route: the 200 schema of
 * the same route in the service's own OpenAPI document, with its $refs inlined.
 * A schema inferred from the body is the fallback when the document has none.
 *
 * `anyOf` of single-value string enums (how TypeBox writes a union of literals)
 * becomes one string enum: the same contract, and what a hand-written schema
 * would say, so the reference is not slowed by per-branch validation.
 */
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const isObject = (v: Json | undefined): v is JsonObject =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function inline(node: Json, components: JsonObject, depth = 0): Json {
  if (depth > 50) throw new Error('schema: $ref nesting too deep');
  if (Array.isArray(node)) return node.map((n) => inline(n, components, depth + 1));
  if (!isObject(node)) return node;
  const ref = node['$ref'];
  if (typeof ref === 'string') {
    const name = /^#\/components\/schemas\/(.+)$/.exec(ref)?.[1];
    const target = name === undefined ? undefined : components[decodeURIComponent(name)];
    if (target === undefined) throw new Error(`schema: cannot resolve ${ref}`);
    return inline(target, components, depth + 1);
  }
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(node)) out[k] = inline(v, components, depth + 1);
  const anyOf = out['anyOf'];
  if (
    Array.isArray(anyOf) &&
    anyOf.length > 0 &&
    anyOf.every((b) => isObject(b) && b['type'] === 'string' && Array.isArray(b['enum']))
  ) {
    delete out['anyOf'];
    out['type'] = 'string';
    out['enum'] = anyOf.flatMap((b) => (isObject(b) ? (b['enum'] as Json[]) : []));
  }
  return out;
}

/** The inlined 200 schema of GET `pathname`, or undefined when the document has none. */
export function schemaFromOpenApi(document: unknown, pathname: string): JsonObject | undefined {
  const doc = document as JsonObject;
  const paths = doc['paths'];
  const components = isObject(doc['components']) ? doc['components']['schemas'] : undefined;
  if (!isObject(paths)) return undefined;
  const op = paths[pathname];
  const get = isObject(op) ? op['get'] : undefined;
  const responses = isObject(get) ? get['responses'] : undefined;
  const ok = isObject(responses) ? responses['200'] : undefined;
  const content = isObject(ok) ? ok['content'] : undefined;
  const json = isObject(content) ? content['application/json'] : undefined;
  const schema = isObject(json) ? json['schema'] : undefined;
  if (!isObject(schema)) return undefined;
  const resolved = inline(schema, isObject(components) ? components : {});
  return isObject(resolved) ? resolved : undefined;
}

/** A schema that matches `value` exactly in shape (arrays take the shape of their first item). */
export function inferSchema(value: unknown): JsonObject {
  if (value === null) return { type: 'null' };
  if (Array.isArray(value)) return { type: 'array', items: value.length ? inferSchema(value[0]) : {} };
  switch (typeof value) {
    case 'string':
      return { type: 'string' };
    case 'number':
      return { type: 'number' };
    case 'boolean':
      return { type: 'boolean' };
    case 'object': {
      const properties: JsonObject = {};
      for (const [k, v] of Object.entries(value as object)) properties[k] = inferSchema(v);
      return { type: 'object', properties, required: Object.keys(properties) };
    }
    default:
      throw new Error(`schema: cannot describe a ${typeof value}`);
  }
}
