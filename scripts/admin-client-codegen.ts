/**
 * Generates `packages/client/src/admin-generated.ts` from the admin API's own
 * OpenAPI document (`/admin/openapi.json`), the way client-codegen.ts
 * generates the public client's types: the document is built in memory (a
 * throw-away SQLite file, no network, no server), and every type and method
 * comes from the schemas the admin routes validate and document.
 *
 * The output: the parameters, query, body and answer of every operation, the
 * error body, the list of operations with their scopes, and an abstract class
 * with one method per operationId that packages/client/src/admin.ts
 * completes with its transport (token, Idempotency-Key, retries, errors).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildAdminApp } from '../src/admin-app.js';
import { assemble } from '../src/runtime/assemble.js';
import {
  describe,
  Generator,
  type JsonSchema,
  jsdoc,
  type OpenApiDocument,
  type Operation,
  pascal,
  propertyKey,
  type Renames,
  str,
  stringArray,
} from './client-codegen.js';

export const ADMIN_GENERATED_PATH = 'packages/client/src/admin-generated.ts';

const LINE_WIDTH = 110;
const WRITE_METHODS = new Set(['post', 'patch', 'put', 'delete']);

/**
 * Operations whose body is text in one of these media types, read by the
 * import's own parsers: the document states them in the operation's
 * description, not as a request body schema (there is none to give).
 */
const TEXT_BODIES: Record<string, readonly string[]> = {
  importData: ['application/x-ndjson', 'application/json', 'text/csv'],
};

interface AdminOperation extends Operation {
  requestBody?: { required?: boolean; content?: Record<string, { schema?: JsonSchema }> };
  'x-scope'?: string;
}

/** Builds the admin app on a temporary SQLite file and returns its GET /admin/openapi.json. */
export async function loadAdminOpenApiDocument(): Promise<OpenApiDocument> {
  const dir = mkdtempSync(join(tmpdir(), 'mds-admin-openapi-'));
  try {
    const runtime = await assemble({ databaseUrl: join(dir, 'openapi.sqlite'), pollMs: 60_000 });
    try {
      const app = await buildAdminApp(runtime.services, { logger: false });
      try {
        const res = await app.inject({ method: 'GET', url: '/admin/openapi.json' });
        if (res.statusCode !== 200) throw new Error(`GET /admin/openapi.json answered ${res.statusCode}`);
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

interface Summary {
  operationId: string;
  name: string;
  method: string;
  path: string;
  status: number;
  scope: string;
  pathParams: string[];
  query: string[];
  requiredQuery: string[];
  body: 'json' | 'text' | 'none';
  csv: boolean;
}

/** The admin document's components named otherwise here, so that the main entry's names stay its own. */
const ADMIN_RENAMES: Renames = {
  Error: {
    name: 'AdminErrorResponse',
    doc: 'The body of every non-2xx answer of the admin API: `data` is null, `error` says why.',
  },
  ErrorInfo: { name: 'AdminErrorInfo', doc: 'The `error` of an admin API error answer.' },
  ErrorCode: { name: 'AdminErrorCode', doc: 'Every `error.code` of the admin API.' },
  ErrorDetail: { name: 'AdminErrorDetail', doc: 'One problem of an admin API error answer.' },
};

/** `name(a, b): R {` on one line when it fits, else one parameter a line, as Biome prints it. */
function signature(head: string, params: string[], returns: string): string {
  const flat = `  ${head}(${params.join(', ')}): ${returns} {`;
  if (flat.length <= LINE_WIDTH) return flat;
  return [`  ${head}(`, ...params.map((p) => `    ${p},`), `  ): ${returns} {`].join('\n');
}

/** The whole text of `admin-generated.ts` for the admin document. */
export function generateAdminClientSource(doc: OpenApiDocument): string {
  const g = new Generator(doc, ADMIN_RENAMES);
  const blocks: string[] = [];
  const methods: string[] = [];
  const list: Summary[] = [];
  for (const name of Object.keys(TEXT_BODIES)) {
    const found = Object.values(doc.paths).some((item) =>
      Object.values(item).some((op) => op.operationId === name),
    );
    if (!found) throw new Error(`TEXT_BODIES names ${name}, which the admin document does not have`);
  }

  for (const [path, item] of Object.entries(doc.paths)) {
    if (!path.startsWith('/admin/v1/')) continue;
    for (const [method, raw] of Object.entries(item)) {
      const op = raw as AdminOperation;
      const operationId = op.operationId;
      if (!operationId || !/^[a-z][A-Za-z0-9]*$/.test(operationId))
        throw new Error(`${method.toUpperCase()} ${path}: operationId ${JSON.stringify(operationId)}`);
      const name = pascal(operationId);
      const title = `\`${method.toUpperCase()} ${path}\`${op.summary ? `: ${op.summary}` : ''}`;
      const scope = op['x-scope'] ?? '';
      const params = op.parameters ?? [];
      const pathParams = params.filter((p) => p.in === 'path');
      const queryParams = params.filter((p) => p.in === 'query');
      const success = Object.keys(op.responses ?? {}).find((s) => /^2\d\d$/.test(s));
      const answer = success ? op.responses![success]!.content : undefined;
      const ok = answer?.['application/json']?.schema;
      // A 204 (a deletion) is the one success without a JSON body.
      if (!success || (!ok && success !== '204'))
        throw new Error(`${method.toUpperCase()} ${path}: no JSON 2xx response`);
      const csv = answer?.['text/csv'] !== undefined;

      blocks.push(`// ---- ${operationId} ${'-'.repeat(Math.max(3, 74 - operationId.length))}`);
      if (pathParams.length > 0) {
        const lines = [...jsdoc([`Path parameters of ${title}`], ''), `export interface ${name}Params {`];
        for (const p of pathParams) {
          lines.push(...jsdoc(describe(p.schema, p.description), '  '));
          lines.push(`  ${propertyKey(p.name)}: ${g.type(p.schema ?? { type: 'string' }, '  ')};`);
        }
        lines.push('}');
        blocks.push(lines.join('\n'));
      }
      if (queryParams.length > 0) {
        const lines = [...jsdoc([`Query parameters of ${title}`], ''), `export interface ${name}Query {`];
        for (const p of queryParams) {
          lines.push(...jsdoc(describe(p.schema, p.description), '  '));
          lines.push(`  ${propertyKey(p.name)}${p.required ? '' : '?'}: ${g.type(p.schema ?? {}, '  ')};`);
        }
        lines.push('}');
        blocks.push(lines.join('\n'));
      }
      const jsonBody = op.requestBody?.content?.['application/json']?.schema;
      const text = TEXT_BODIES[operationId];
      const body: Summary['body'] = jsonBody ? 'json' : text ? 'text' : 'none';
      if (jsonBody) blocks.push(g.declaration(`${name}Body`, jsonBody, [`The body of ${title}`]));

      if (!ok) {
        const about = op.responses![success]!.description ?? 'No body';
        blocks.push(
          [...jsdoc([`${about} (${title}): no body.`], ''), `export type ${name}Response = undefined;`].join(
            '\n',
          ),
        );
      } else {
        blocks.push(
          ...g.answer(name, title, ok, 'The answer', (data) => {
            const items = data.items;
            // A list of a component: its item keeps the name it had before components (docs/decisions.md 64);
            // a list of objects: its item is an interface of its own (`{…}[]` is neither readable nor Biome's format).
            if (data.type === 'array' && (items?.$ref || (items?.type === 'object' && items.properties))) {
              return [
                g.declaration(`${name}Item`, items, [`An item of \`data\` of ${title}`]),
                `/** \`data\` of ${title} */\nexport type ${name}Data = ${name}Item[];`,
              ];
            }
            return [g.declaration(`${name}Data`, data, [`\`data\` of ${title}`])];
          }),
        );
      }

      // The method: path parameters, then the body, then the query, then the options.
      const args: string[] = pathParams.map((p) => `${p.name}: ${name}Params[${str(p.name)}]`);
      const bodyRequired = jsonBody ? (g.resolve(jsonBody).required ?? []).length > 0 : body === 'text';
      if (body === 'json') args.push(`body${bodyRequired ? '' : '?'}: ${name}Body`);
      if (body === 'text') args.push('body: string');
      const queryRequired = queryParams.some((p) => p.required);
      if (queryParams.length > 0) args.push(`query${queryRequired ? '' : '?'}: ${name}Query`);
      const writes = WRITE_METHODS.has(method);
      const optionsType =
        body === 'text' ? 'AdminTextBodyOptions' : writes ? 'AdminWriteOptions' : 'AdminRequestOptions';
      const callArgs = [
        str(operationId),
        pathParams.length > 0 ? `{ ${pathParams.map((p) => p.name).join(', ')} }` : '{}',
        queryParams.length > 0 ? 'query' : 'undefined',
        body === 'none' ? 'undefined' : 'body',
        'options',
      ];
      const about = [
        `${title} (\`${operationId}\`). Requires the scope \`${scope}\`.`,
        ...(writes ? ['`options.idempotencyKey` makes a retry safe (sent as `Idempotency-Key`).'] : []),
      ];
      const emit = (methodName: string, returns: string, call: string, doc: string[]) => {
        methods.push(
          [
            ...jsdoc(doc, '  '),
            signature(methodName, [...args, `options?: ${optionsType}`], returns),
            `    return this.${call}(${callArgs.join(', ')});`,
            '  }',
          ].join('\n'),
        );
      };
      emit(operationId, `Promise<${name}Response>`, 'request', about);
      if (csv) {
        emit(`${operationId}Csv`, 'Promise<string>', 'requestCsv', [
          `${title} as CSV text (\`Accept: text/csv\`): a header row, then one record a line (CRLF line ends, RFC 4180 quoting, nested fields joined with \`_\`). Requires the scope \`${scope}\`.`,
        ]);
      }
      list.push({
        operationId,
        name,
        method: method.toUpperCase(),
        path,
        status: Number(success),
        scope,
        pathParams: pathParams.map((p) => p.name),
        query: queryParams.map((p) => p.name),
        requiredQuery: queryParams.filter((p) => p.required).map((p) => p.name),
        body,
        csv,
      });
    }
  }

  const errorBody = g
    .errorBody()
    .replace('export interface ErrorResponse ', 'export interface AdminErrorResponse ')
    .replace('The body of every non-2xx answer', 'The body of every non-2xx answer of the admin API');

  const operationsConst = [
    ...jsdoc(['Every operation of the admin document, in document order, with the scope it requires.'], ''),
    'export const ADMIN_OPERATIONS = [',
    ...list.map((op) =>
      [
        '  {',
        `    operationId: ${str(op.operationId)},`,
        `    method: ${str(op.method)},`,
        `    path: ${str(op.path)},`,
        `    status: ${op.status},`,
        `    scope: ${str(op.scope)},`,
        stringArray('pathParams: ', op.pathParams, '    '),
        stringArray('query: ', op.query, '    '),
        stringArray('requiredQuery: ', op.requiredQuery, '    '),
        `    body: ${str(op.body)},`,
        `    csv: ${op.csv},`,
        '  },',
      ].join('\n'),
    ),
    '] as const;',
  ].join('\n');

  const operationsMap = [
    ...jsdoc(['The types of every admin operation, by operationId.'], ''),
    'export interface AdminOperations {',
    ...list.map((op) =>
      [
        `  ${op.operationId}: {`,
        `    method: ${str(op.method)};`,
        `    path: ${str(op.path)};`,
        `    params: ${op.pathParams.length > 0 ? `${op.name}Params` : 'Record<string, never>'};`,
        `    query: ${op.query.length > 0 ? `${op.name}Query` : 'Record<string, never>'};`,
        `    body: ${op.body === 'json' ? `${op.name}Body` : op.body === 'text' ? 'string' : 'undefined'};`,
        `    response: ${op.name}Response;`,
        '  };',
      ].join('\n'),
    ),
    '}',
  ].join('\n');

  const options = [
    '/** Options of every admin call. */',
    'export interface AdminRequestOptions {',
    '  /** Aborts the request, and any wait before a retry. */',
    '  signal?: AbortSignal;',
    '}',
    '',
    '/** Options of a POST, PATCH or DELETE. */',
    'export interface AdminWriteOptions extends AdminRequestOptions {',
    '  /**',
    '   * Sent as `Idempotency-Key`: the same key with the same request replays the first answer for 24',
    '   * hours; with another request it is a 409 `idempotency_key_reused`. A call with one is retried',
    '   * after a 429, a 503 or `idempotency_key_in_progress`; one without is never retried.',
    '   */',
    '  idempotencyKey?: string;',
    '}',
    '',
    '/** Options of an operation whose body is text (a data import). */',
    'export interface AdminTextBodyOptions extends AdminWriteOptions {',
    '  /** The body\'s format. @default "application/x-ndjson" */',
    `  contentType?: ${[...new Set(Object.values(TEXT_BODIES).flat())].map(str).join(' | ')};`,
    '}',
  ].join('\n');

  const base = [
    ...jsdoc(
      [
        'One method per admin operation, named after its operationId; MdsAdminClient (admin.ts) gives',
        'the transport.',
      ],
      '',
    ),
    'export abstract class AdminOperationMethods {',
    '  protected abstract request<K extends keyof AdminOperations>(',
    '    operationId: K,',
    '    params: Record<string, string>,',
    '    query: object | undefined,',
    '    body: unknown,',
    '    options: AdminTextBodyOptions | undefined,',
    "  ): Promise<AdminOperations[K]['response']>;",
    '',
    '  protected abstract requestCsv(',
    '    operationId: keyof AdminOperations,',
    '    params: Record<string, string>,',
    '    query: object | undefined,',
    '    body: unknown,',
    '    options: AdminRequestOptions | undefined,',
    '  ): Promise<string>;',
    '',
    methods.join('\n\n'),
    '}',
  ].join('\n');

  const sections = [
    [
      '/**',
      ` * GENERATED from the OpenAPI document of ${doc.info.title} ${doc.info.version}`,
      ' * by scripts/generate-client.ts (`npm run generate:client`, run by `npm run build`).',
      ' * Do not edit: change the admin route schemas in src/schemas and regenerate.',
      ' */',
    ].join('\n'),
    `/** Version of the admin API document this file was generated from. */\nexport const ADMIN_API_VERSION = ${str(doc.info.version)};`,
    ...(Object.keys(doc.components?.schemas ?? {}).length > 0
      ? [
          '// ---- Component schemas -------------------------------------------------------',
          ...g.components(),
        ]
      : []),
    ...blocks,
    '// ---- Errors ------------------------------------------------------------------',
    errorBody,
    '// ---- Operations --------------------------------------------------------------',
    operationsConst,
    operationsMap,
    options,
    base,
  ];
  return `${sections.filter((section) => section !== '').join('\n\n')}\n`;
}
