/**
 * Both OpenAPI documents are written for code generators (docs/decisions.md
 * 64): every schema used in more than one place, the records, the error
 * envelope and the `meta` of each operation is a component named after what
 * it is, referred to by `$ref`, never `def-N`; each error answer's body is the
 * one `Error`, the codes of its status in `x-error-codes`. And every schema
 * has a `type` or is a `$ref`: Scalar's reference (/docs/) checks a component
 * reached through a `$ref` against a schema of schemas that has no variant
 * without `type`, and logs "document validation errors" for each one, as it
 * did for the four records written as unions (test/browser/docs-validation.test.ts
 * loads the page). test/client/generators.test.ts generates clients from it.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { loadAdminOpenApiDocument } from '../../scripts/admin-client-codegen.js';
import { loadOpenApiDocument } from '../../scripts/client-codegen.js';
import { ADMIN_ERROR_CODES } from '../../src/schemas/admin.js';
import { ERROR_CODES } from '../../src/schemas/errors.js';

// biome-ignore lint/suspicious/noExplicitAny: the documents are walked loosely
type Json = any;

const COMPONENT = '#/components/schemas/';
const TYPES = new Set(['null', 'boolean', 'object', 'array', 'number', 'string', 'integer']);
const SUBSCHEMA = ['items', 'not', 'contains', 'propertyNames', 'contentSchema', 'if', 'then', 'else'];
const SUBSCHEMAS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'dependentSchemas'];

/** Calls `visit` with every schema under `schema` (itself included) and its JSON pointer. */
function walk(schema: Json, where: string, visit: (schema: Json, where: string) => void): void {
  if (typeof schema !== 'object' || schema === null) return;
  visit(schema, where);
  for (const key of SUBSCHEMA) walk(schema[key], `${where}/${key}`, visit);
  if (typeof schema.additionalProperties === 'object')
    walk(schema.additionalProperties, `${where}/additionalProperties`, visit);
  for (const key of SUBSCHEMAS)
    for (const [i, s] of (schema[key] ?? []).entries()) walk(s, `${where}/${key}/${i}`, visit);
  for (const key of SCHEMA_MAPS)
    for (const [name, s] of Object.entries(schema[key] ?? {})) walk(s, `${where}/${key}/${name}`, visit);
}

/** Every schema of a document with its pointer: components, bodies, parameters, headers. */
function everySchema(doc: Json, visit: (schema: Json, where: string) => void): void {
  for (const [name, s] of Object.entries(doc.components?.schemas ?? {}))
    walk(s, `#/components/schemas/${name}`, visit);
  for (const [path, item] of Object.entries<Json>(doc.paths ?? {})) {
    for (const [method, op] of Object.entries<Json>(item)) {
      const at = `#/paths/${path.replaceAll('/', '~1')}/${method}`;
      for (const [i, p] of (op.parameters ?? []).entries())
        walk(p.schema, `${at}/parameters/${i}/schema`, visit);
      for (const [type, m] of Object.entries<Json>(op.requestBody?.content ?? {}))
        walk(m.schema, `${at}/requestBody/content/${type}/schema`, visit);
      for (const [status, r] of Object.entries<Json>(op.responses ?? {})) {
        for (const [type, m] of Object.entries<Json>(r.content ?? {}))
          walk(m.schema, `${at}/responses/${status}/content/${type}/schema`, visit);
        for (const [name, h] of Object.entries<Json>(r.headers ?? {}))
          walk(h.schema, `${at}/responses/${status}/headers/${name}/schema`, visit);
      }
    }
  }
}

/** The schemas Scalar 1.46's reference refuses when reached through a `$ref`: neither `type` nor `$ref`. */
function untypedSchemas(doc: Json): string[] {
  const out: string[] = [];
  everySchema(doc, (s, where) => {
    const types = Array.isArray(s.type) ? s.type : [s.type];
    if (
      typeof s.$ref !== 'string' &&
      !(s.type !== undefined && types.every((t: unknown) => TYPES.has(t as string)))
    )
      out.push(where);
  });
  return out;
}

/** The `$ref`s of a document. */
function refs(doc: Json): string[] {
  const out: string[] = [];
  everySchema(doc, (s) => {
    if (typeof s.$ref === 'string') out.push(s.$ref);
  });
  return out;
}

function expectNamedComponents(doc: Json): void {
  const names = Object.keys(doc.components?.schemas ?? {});
  for (const name of names) expect(name, 'a component named after its $id').toMatch(/^[A-Z][A-Za-z0-9]*$/);
  const text = JSON.stringify(doc);
  expect(text).not.toMatch(/def-\d/);
  const used = refs(doc);
  for (const ref of used) {
    expect(ref.startsWith(COMPONENT), ref).toBe(true);
    expect(names, ref).toContain(ref.slice(COMPONENT.length));
  }
  // Nothing documented for nobody.
  for (const name of names) expect(used, `component ${name} is used`).toContain(`${COMPONENT}${name}`);
}

describe('the OpenAPI document for code generators', () => {
  let doc: Json;
  beforeAll(async () => {
    doc = await loadOpenApiDocument();
  }, 60_000);

  it('names its components after their $id, each used, none def-N', () => {
    expectNamedComponents(doc);
    expect(Object.keys(doc.components.schemas)).toEqual(
      expect.arrayContaining([
        'Asset',
        'LatestRate',
        'RateHistoryRecord',
        'PremiumItem',
        'PremiumHistoryItem',
        'GoldRecord',
        'Identity',
        'DailyUsage',
        'Error',
        'ErrorCode',
        'ErrorDetail',
        'LocalizedNames',
        'RateSource',
        'PremiumSummary',
        'ServiceStatus',
        'FamilyFreshness',
      ]),
    );
  });

  it("refers to each operation's data and meta by $ref", () => {
    for (const [path, item] of Object.entries<Json>(doc.paths)) {
      const schema = item.get.responses['200'].content['application/json'].schema;
      const data = schema.properties.data;
      expect(data.$ref ?? data.items?.$ref, `${path} data`).toMatch(/^#\/components\/schemas\/[A-Z]/);
      expect(schema.properties.meta.$ref, `${path} meta`).toMatch(/Meta$/);
    }
    const metas = Object.keys(doc.components.schemas).filter((n) => n.endsWith('Meta'));
    expect(metas.sort()).toEqual([
      'AssetsMeta',
      'GoldHistoryMeta',
      'GoldLatestMeta',
      'HealthMeta',
      'MarketPremiumHistoryMeta',
      'MarketPremiumMeta',
      'RatesHistoryMeta',
      'RatesLatestMeta',
      'RequestMeta',
    ]);
  });

  it('answers every error with the Error component, its codes in x-error-codes', () => {
    for (const [path, item] of Object.entries<Json>(doc.paths)) {
      for (const [status, response] of Object.entries<Json>(item.get.responses)) {
        if (Number(status) < 400 || (path === '/readyz' && status === '503')) continue;
        expect(response.content['application/json'].schema, `${path} ${status}`).toEqual({
          $ref: `${COMPONENT}Error`,
        });
        expect(response['x-error-codes']).toEqual(ERROR_CODES[Number(status) as keyof typeof ERROR_CODES]);
      }
    }
  });

  it('gives every schema a type, as Scalar needs, and the check finds the unions it refused', () => {
    expect(untypedSchemas(doc)).toEqual([]);
    // The shape of the four records Scalar 1.46 refused: a union of constants without `type`.
    const purity = { anyOf: ['18K', '21K'].map((v) => ({ type: 'string', enum: [v] })) };
    const refused = {
      components: { schemas: { 'def-5': { type: 'object', properties: { purity }, title: 'GoldRecord' } } },
      paths: {},
    };
    expect(untypedSchemas(refused)).toEqual(['#/components/schemas/def-5/properties/purity']);
    // Nullables are a type list, enums one `enum` (a parameter too).
    const s = doc.components.schemas;
    expect(s.RatesHistoryMeta.properties.nextCursor).toEqual({ type: ['string', 'null'] });
    expect(s.AssetsMeta.properties.type).toEqual({
      type: ['string', 'null'],
      enum: ['currency', 'metal', 'crypto', null],
    });
    expect(s.PremiumSummary.type).toEqual(['object', 'null']);
    const source = doc.paths['/v1/rates/latest'].get.parameters.find((p: Json) => p.name === 'source');
    expect(source.schema).toMatchObject({ type: 'string', enum: ['parallel', 'official', 'transfer'] });
  });
});

describe('the admin OpenAPI document for code generators', () => {
  let doc: Json;
  beforeAll(async () => {
    doc = await loadAdminOpenApiDocument();
  }, 60_000);

  it('names its components after their $id, each used, none def-N; bodies are components too', () => {
    expectNamedComponents(doc);
    expect(Object.keys(doc.components.schemas)).toEqual(
      expect.arrayContaining([
        'Account',
        'Grant',
        'Key',
        'AuditRecord',
        'DailyUsage',
        'StatementLine',
        'ImportReport',
        'Error',
        'ListMeta',
        'AccountCreate',
        'GrantPatch',
        'KeyRoll',
      ]),
    );
    expect(doc.paths['/admin/v1/accounts'].post.requestBody.content['application/json'].schema).toEqual({
      $ref: `${COMPONENT}AccountCreate`,
    });
    expect(untypedSchemas(doc).filter((where) => !/\/(before|after)$/.test(where))).toEqual([]);
  });

  it('answers every error with its Error component, the codes in x-error-codes', () => {
    for (const [path, item] of Object.entries<Json>(doc.paths)) {
      if (!path.startsWith('/admin/v1/')) continue;
      for (const [method, op] of Object.entries<Json>(item)) {
        for (const [status, response] of Object.entries<Json>(op.responses)) {
          if (Number(status) < 400) continue;
          const where = `${method} ${path} ${status}`;
          expect(response.content['application/json'].schema, where).toEqual({ $ref: `${COMPONENT}Error` });
          expect(response['x-error-codes'], where).toEqual(
            ADMIN_ERROR_CODES[Number(status) as keyof typeof ADMIN_ERROR_CODES],
          );
        }
      }
    }
  });
});
