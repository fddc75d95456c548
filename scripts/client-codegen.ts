/**
 * Generates `packages/client/src/generated.ts` from the service's own OpenAPI
 * document: a TypeScript type for every response (its `data` and `meta`), for
 * the query parameters of every operation and for the error body, plus the list
 * of operations. The document is built in memory (a throw-away SQLite file, no
 * network), so the client is generated from exactly the schemas the server
 * validates and documents, and cannot drift from them.
 *
 * The JSON Schemas of this API are small and regular (objects, arrays, strings
 * with enums or constants, numbers, integers, nullables, `$ref` to component
 * schemas), so the conversion is written here rather than taken from a
 * dependency. A component becomes a type of its name (docs/decisions.md 64),
 * but the error envelope `Error`, which is `ErrorResponse` here (a type named
 * `Error` would hide the global class). The output is already in the repository's Biome format, so the
 * committed file passes `biome check` and regeneration is byte-stable.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../src/app.js';
import { assemble } from '../src/runtime/assemble.js';

export const GENERATED_PATH = 'packages/client/src/generated.ts';

export interface JsonSchema {
  $ref?: string;
  type?: string | string[];
  title?: string;
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  nullable?: boolean;
  default?: unknown;
  format?: string;
  minimum?: number;
  maximum?: number;
  deprecated?: boolean;
  [k: string]: unknown;
}

export interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  deprecated?: boolean;
  schema?: JsonSchema;
}

export interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  deprecated?: boolean;
  parameters?: Parameter[];
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: JsonSchema }> }>;
}

export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

/** Builds the app on a temporary SQLite file and returns its GET /openapi.json. */
export async function loadOpenApiDocument(): Promise<OpenApiDocument> {
  const dir = mkdtempSync(join(tmpdir(), 'mds-openapi-'));
  try {
    const runtime = await assemble({ databaseUrl: join(dir, 'openapi.sqlite'), pollMs: 60_000 });
    try {
      const app = await buildApp(runtime.services, { logger: false });
      try {
        const res = await app.inject({ method: 'GET', url: '/openapi.json' });
        if (res.statusCode !== 200) throw new Error(`GET /openapi.json answered ${res.statusCode}`);
        return res.json() as OpenApiDocument;
      } finally {
        await app.close();
      }
    } finally {
      await runtime.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---- Rendering helpers ------------------------------------------------------

const LINE_WIDTH = 110;
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** A string literal as Biome prints it: single quotes unless that needs more escapes. */
export function str(value: string): string {
  const escaped = value.replaceAll('\\', '\\\\').replaceAll('\n', '\\n');
  if (value.includes("'") && !value.includes('"')) return `"${escaped}"`;
  return `'${escaped.replaceAll("'", "\\'")}'`;
}

function literal(value: unknown): string {
  if (typeof value === 'string') return str(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  throw new Error(`unsupported literal ${JSON.stringify(value)}`);
}

export const propertyKey = (name: string) => (IDENTIFIER.test(name) ? name : str(name));

/** `/v1/rates/history` → `RatesHistory`. */
export function operationName(path: string): string {
  return path
    .replace(/^\/v\d+\//, '')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
}

export const pascal = (text: string) =>
  text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');

/** `head: A | B;`, or, past the line width, one member a line as Biome prints it. */
function property(head: string, members: string[], indent: string): string {
  const flat = `${head}: ${members.join(' | ')};`;
  if (flat.length <= LINE_WIDTH || members.length < 2 || members.some((m) => m.includes('\n'))) return flat;
  const lines = members.map((m) => `${indent}  | ${m}`);
  return `${head}:\n${lines.join('\n')};`;
}

/** A JSDoc block at `indent`, or nothing. */
export function jsdoc(lines: string[], indent: string): string[] {
  const text = lines
    .flatMap((l) => l.split('\n'))
    .map((l) => l.trimEnd().replaceAll('*/', '*\\/'))
    .filter((l, i, all) => l !== '' || (i > 0 && i < all.length - 1));
  if (text.length === 0) return [];
  if (text.length === 1 && indent.length + text[0]!.length + 7 <= LINE_WIDTH) {
    return [`${indent}/** ${text[0]} */`];
  }
  return [
    `${indent}/**`,
    ...text.map((l) => (l === '' ? `${indent} *` : `${indent} * ${l}`)),
    `${indent} */`,
  ];
}

/** The documentation of a schema: its description and, for parameters, its rules. */
export function describe(schema: JsonSchema | undefined, description?: string): string[] {
  const out: string[] = [];
  const text = description ?? schema?.description;
  if (text) out.push(text);
  if (!schema) return out;
  if (schema.format === 'date') out.push('Format: `YYYY-MM-DD`.');
  else if (schema.format === 'date-time') out.push('Format: ISO 8601 date-time (UTC).');
  if (schema.minimum !== undefined && schema.maximum !== undefined) {
    out.push(`From ${schema.minimum} to ${schema.maximum}.`);
  }
  if (schema.default !== undefined) out.push(`@default ${JSON.stringify(schema.default)}`);
  if (schema.deprecated) out.push('@deprecated');
  return out;
}

/** A component's type when its own name will not do, and the type's documentation. */
export type Renames = Record<string, { name: string; doc: string }>;

const RENAMES: Renames = {
  Error: {
    name: 'ErrorResponse',
    doc: 'The body of every non-2xx answer: `data` is null, `error` says why.',
  },
};

export class Generator {
  /** Component schema reference → type name. */
  private readonly refs = new Map<string, string>();

  constructor(
    private readonly doc: OpenApiDocument,
    private readonly renames: Renames = RENAMES,
  ) {
    const taken = new Set<string>();
    for (const [key, schema] of Object.entries(doc.components?.schemas ?? {})) {
      const name = renames[key]?.name ?? pascal(schema.title ?? key);
      if (taken.has(name)) throw new Error(`two component schemas are both named ${name}`);
      taken.add(name);
      this.refs.set(`#/components/schemas/${key}`, name);
    }
  }

  private refName(ref: string): string {
    const name = this.refs.get(ref);
    if (!name) throw new Error(`unresolved $ref ${ref}`);
    return name;
  }

  /** The component a `$ref` names, or the schema itself. */
  resolve(schema: JsonSchema): JsonSchema {
    if (!schema.$ref) return schema;
    this.refName(schema.$ref);
    return this.doc.components!.schemas![schema.$ref.slice('#/components/schemas/'.length)]!;
  }

  /** The members of the union a schema denotes, each rendered at `indent`. */
  members(schema: JsonSchema, indent: string): string[] {
    const out: string[] = [];
    if (schema.$ref) out.push(this.refName(schema.$ref));
    else if ('const' in schema) out.push(literal(schema.const));
    else if (schema.enum) out.push(...schema.enum.map(literal));
    else if (schema.anyOf || schema.oneOf) {
      for (const s of schema.anyOf ?? schema.oneOf ?? []) out.push(...this.members(s, indent));
    } else if (schema.allOf) {
      out.push(
        schema.allOf
          .map((s) => {
            const m = this.members(s, indent);
            return m.length > 1 ? `(${m.join(' | ')})` : m[0]!;
          })
          .join(' & '),
      );
    } else if (Array.isArray(schema.type)) {
      for (const type of schema.type) out.push(...this.members({ ...schema, type }, indent));
    } else {
      switch (schema.type) {
        case 'string':
          out.push('string');
          break;
        case 'number':
        case 'integer':
          out.push('number');
          break;
        case 'boolean':
          out.push('boolean');
          break;
        case 'null':
          out.push('null');
          break;
        case 'array': {
          const items = schema.items ? this.members(schema.items, indent) : ['unknown'];
          out.push(items.length > 1 ? `(${items.join(' | ')})[]` : `${items[0]}[]`);
          break;
        }
        case 'object':
          out.push(this.object(schema, indent));
          break;
        default:
          out.push(schema.properties ? this.object(schema, indent) : 'unknown');
      }
    }
    if (schema.nullable) out.push('null');
    return [...new Set(out)];
  }

  type(schema: JsonSchema, indent: string): string {
    return this.members(schema, indent).join(' | ');
  }

  /** An object type literal, expanded over several lines. */
  object(schema: JsonSchema, indent: string, describeProperties = true): string {
    const properties = Object.entries(schema.properties ?? {});
    const extra = schema.additionalProperties;
    if (properties.length === 0) {
      if (typeof extra === 'object') {
        const flat = this.type(extra, indent);
        if (!flat.includes('\n')) return `Record<string, ${flat}>`;
        // An object's members: one a line, as Biome prints it.
        return `Record<\n${indent}  string,\n${indent}  ${this.type(extra, `${indent}  `)}\n${indent}>`;
      }
      return 'Record<string, unknown>';
    }
    const inner = `${indent}  `;
    const required = new Set(schema.required ?? []);
    const lines = ['{'];
    for (const [name, prop] of properties) {
      if (describeProperties) lines.push(...jsdoc(describe(prop), inner));
      const optional = required.has(name) ? '' : '?';
      lines.push(property(`${inner}${propertyKey(name)}${optional}`, this.members(prop, inner), inner));
    }
    if (typeof extra === 'object') lines.push(`${inner}[key: string]: ${this.type(extra, inner)};`);
    lines.push(`${indent}}`);
    return lines.join('\n');
  }

  /**
   * `export interface Name {…}` for an object, `export type Name = …;` otherwise;
   * nothing (the empty string) for a `$ref` to the component of that very name.
   */
  declaration(name: string, schema: JsonSchema, doc: string[] = []): string {
    if (schema.$ref && this.refName(schema.$ref) === name) return '';
    const members = this.members(schema, '');
    const head = jsdoc(doc, '');
    if (members.length === 1 && members[0]!.startsWith('{\n'))
      return [...head, `export interface ${name} ${members[0]}`].join('\n');
    const flat = `export type ${name} = ${members.join(' | ')};`;
    if (flat.length <= LINE_WIDTH || members.some((m) => m.includes('\n'))) return [...head, flat].join('\n');
    // A long union: one member a line, as Biome prints it.
    return [...head, `export type ${name} =`, ...members.map((m) => `  | ${m}`)].join('\n').concat(';');
  }

  /**
   * The declarations of an operation's 2xx JSON answer `ok`: for the `{ data,
   * meta }` envelope, what `data` declares (by default `<name>Data`), then
   * `<name>Meta` and the `<name>Response` interface over both; any other body
   * is `<name>Response` itself. `fallback` documents an answer the document
   * does not describe.
   */
  answer(
    name: string,
    title: string,
    ok: JsonSchema,
    fallback: string,
    data: (schema: JsonSchema) => string[] = (schema) => [
      this.declaration(`${name}Data`, schema, [`\`data\` of ${title}`]),
    ],
  ): string[] {
    const about = `${ok.description ?? fallback} (${title})`;
    const envelope = ok.properties;
    if (!(ok.type === 'object' && envelope?.data && envelope.meta)) {
      return [this.declaration(`${name}Response`, ok, [about])];
    }
    return [
      ...data(envelope.data),
      this.declaration(`${name}Meta`, envelope.meta, [`\`meta\` of ${title}`]),
      [
        ...jsdoc([about], ''),
        `export interface ${name}Response {`,
        `  data: ${name}Data;`,
        `  meta: ${name}Meta;`,
        '}',
      ].join('\n'),
    ];
  }

  components(): string[] {
    const out: string[] = [];
    for (const [key, schema] of Object.entries(this.doc.components?.schemas ?? {})) {
      const name = this.refName(`#/components/schemas/${key}`);
      const about = this.renames[key]?.doc ?? schema.description;
      out.push(this.declaration(name, schema, about ? [about] : []));
    }
    return out;
  }

  operations(): { blocks: string[]; list: OperationSummary[] } {
    const blocks: string[] = [];
    const list: OperationSummary[] = [];
    const names = new Set<string>();
    const operationIds = new Set<string>();
    for (const [path, item] of Object.entries(this.doc.paths)) {
      const methods = Object.keys(item).filter((m) => HTTP_METHODS.includes(m));
      if (methods.length !== 1) {
        throw new Error(`${path}: the generator handles one method per path, found ${methods.join(', ')}`);
      }
      const method = methods[0]!;
      const op = item[method]!;
      const name = operationName(path);
      if (names.has(name)) throw new Error(`two paths are both named ${name}`);
      names.add(name);
      // The client's methods are named after the operationIds: a missing or odd one is a document bug.
      const operationId = op.operationId;
      if (!operationId || !IDENTIFIER.test(operationId)) {
        throw new Error(
          `${method.toUpperCase()} ${path}: operationId ${JSON.stringify(operationId)} is not an identifier`,
        );
      }
      if (operationIds.has(operationId))
        throw new Error(`two operations have the operationId ${operationId}`);
      operationIds.add(operationId);

      const params = (op.parameters ?? []).filter((p) => p.in === 'query');
      const ok = op.responses?.['200']?.content?.['application/json']?.schema;
      if (!ok) throw new Error(`${method.toUpperCase()} ${path}: no JSON 200 response`);

      const title = `\`${method.toUpperCase()} ${path}\`${op.summary ? `: ${op.summary}` : ''}`;
      const about = [title, ...(op.deprecated ? ['@deprecated'] : [])];
      blocks.push(`// ---- ${method.toUpperCase()} ${path} ${'-'.repeat(Math.max(3, 70 - path.length))}`);
      blocks.push(this.query(`${name}Query`, params, about));

      blocks.push(...this.answer(name, title, ok, 'The response'));
      list.push({
        name,
        operationId,
        method: method.toUpperCase(),
        path,
        query: params.map((p) => p.name),
        requiredQuery: params.filter((p) => p.required).map((p) => p.name),
        deprecated: op.deprecated === true,
      });
    }
    return { blocks, list };
  }

  private query(name: string, params: Parameter[], about: string[]): string {
    const head = jsdoc([`Query parameters of ${about[0]}`, ...about.slice(1)], '');
    if (params.length === 0) return [...head, `export type ${name} = Record<string, never>;`].join('\n');
    const lines = [...head, `export interface ${name} {`];
    for (const p of params) {
      lines.push(...jsdoc(describe(p.schema, p.description), '  '));
      lines.push(`  ${propertyKey(p.name)}${p.required ? '' : '?'}: ${this.type(p.schema ?? {}, '  ')};`);
    }
    lines.push('}');
    return lines.join('\n');
  }

  /**
   * Every non-2xx error envelope of the document. They must all have one shape
   * but for `error.code`, whose enum varies with the status: the type lists
   * every code, in status order. Nothing when they are all one component
   * (`Error`, written with the components).
   */
  errorBody(): string {
    let shape: string | undefined;
    let where = '';
    let first: JsonSchema | undefined;
    const codes = new Map<number, unknown[]>();
    const refs = new Set<string | undefined>();
    for (const [path, item] of Object.entries(this.doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (!HTTP_METHODS.includes(method)) continue;
        for (const [status, response] of Object.entries(op.responses ?? {})) {
          const raw = response.content?.['application/json']?.schema;
          const schema = raw && this.resolve(raw);
          // Only error envelopes: a 503 of /readyz, say, is an ordinary answer.
          if (/^2/.test(status) || !schema?.properties?.error) continue;
          refs.add(raw?.$ref);
          const code = errorCode(schema);
          if (code?.enum) codes.set(Number(status), [...(codes.get(Number(status)) ?? []), ...code.enum]);
          const rendered = this.object(withCodes(schema, undefined), '', true);
          if (shape === undefined) {
            shape = rendered;
            first = schema;
            where = `${method.toUpperCase()} ${path} ${status}`;
          } else if (rendered !== shape) {
            throw new Error(`${method.toUpperCase()} ${path} ${status}: error body differs from ${where}`);
          }
        }
      }
    }
    if (first === undefined) throw new Error('the document describes no error body');
    if (refs.size === 1 && !refs.has(undefined)) return '';
    const all = [...codes.entries()].sort(([a], [b]) => a - b).flatMap(([, c]) => c);
    const merged = all.length > 0 ? withCodes(first, [...new Set(all)]) : first;
    return [
      ...jsdoc(['The body of every non-2xx answer: `data` is null, `error` says why.'], ''),
      `export interface ErrorResponse ${this.object(merged, '', true)}`,
    ].join('\n');
  }
}

const errorCode = (schema: JsonSchema): JsonSchema | undefined => schema.properties?.error?.properties?.code;

/** `schema` with `error.code`'s enum replaced (or dropped, to compare shapes). */
function withCodes(schema: JsonSchema, codes: unknown[] | undefined): JsonSchema {
  const error = schema.properties?.error;
  const code = errorCode(schema);
  if (!error || !code) return schema;
  const { enum: _dropped, ...rest } = code;
  return {
    ...schema,
    properties: {
      ...schema.properties,
      error: {
        ...error,
        properties: {
          ...error.properties,
          code: codes ? { ...rest, enum: codes } : { ...rest, type: 'string' },
        },
      },
    },
  };
}

interface OperationSummary {
  name: string;
  operationId: string;
  method: string;
  path: string;
  query: string[];
  requiredQuery: string[];
  deprecated: boolean;
}

/** A string array literal at `indent`, on one line when it fits. */
export function stringArray(prefix: string, values: string[], indent: string): string {
  const flat = `${indent}${prefix}[${values.map(str).join(', ')}],`;
  if (flat.length <= LINE_WIDTH) return flat;
  return [`${indent}${prefix}[`, ...values.map((v) => `${indent}  ${str(v)},`), `${indent}],`].join('\n');
}

/** The whole text of `generated.ts` for a document. */
export function generateClientSource(doc: OpenApiDocument): string {
  const g = new Generator(doc);
  const { blocks, list } = g.operations();

  const operationsConst = [
    ...jsdoc(['Every operation of the document, in document order.'], ''),
    'export const OPERATIONS = [',
    ...list.map((op) =>
      [
        '  {',
        `    name: ${str(op.name)},`,
        `    operationId: ${str(op.operationId)},`,
        `    method: ${str(op.method)},`,
        `    path: ${str(op.path)},`,
        stringArray('query: ', op.query, '    '),
        stringArray('requiredQuery: ', op.requiredQuery, '    '),
        `    deprecated: ${op.deprecated},`,
        '  },',
      ].join('\n'),
    ),
    '] as const;',
  ].join('\n');

  const operationsMap = [
    ...jsdoc(['Query and response types of every operation, by path.'], ''),
    'export interface Operations {',
    ...list.map((op) =>
      [
        `  ${str(op.path)}: {`,
        `    method: ${str(op.method)};`,
        `    query: ${op.name}Query;`,
        `    response: ${op.name}Response;`,
        '  };',
      ].join('\n'),
    ),
    '}',
  ].join('\n');

  const operationIds = [
    ...jsdoc(
      ['The path of every operation, by its operationId: the client names its methods after them.'],
      '',
    ),
    'export interface OperationIds {',
    ...list.map((op) => `  ${op.operationId}: ${str(op.path)};`),
    '}',
  ].join('\n');

  const deprecated = list.filter((op) => op.deprecated).map((op) => str(op.path));

  const sections = [
    [
      '/**',
      ` * GENERATED from the OpenAPI document of ${doc.info.title} ${doc.info.version}`,
      ' * by scripts/generate-client.ts (`npm run generate:client`, run by `npm run build`).',
      ' * Do not edit: change the route schemas in src/schemas and regenerate.',
      ' */',
    ].join('\n'),
    `/** Version of the API document this file was generated from. */\nexport const API_VERSION = ${str(doc.info.version)};`,
    '// ---- Component schemas -------------------------------------------------------',
    ...g.components(),
    ...blocks,
    '// ---- Errors ------------------------------------------------------------------',
    g.errorBody(),
    '// ---- Operations --------------------------------------------------------------',
    operationsConst,
    operationsMap,
    operationIds,
    '/** Every path of the document. */\nexport type OperationPath = keyof Operations;',
    `/** Paths the document marks deprecated. */\nexport type DeprecatedPath = ${deprecated.length ? deprecated.join(' | ') : 'never'};`,
  ];
  return `${sections.filter((section) => section !== '').join('\n\n')}\n`;
}
