/**
 * `GET /llms.txt` (decisions §12, "For language-model agents"): the service in
 * a few lines of Markdown for a language model, in the llmstxt.org layout.
 * Outside /v1: no key, no quota.
 *
 * The endpoint lines are written from the OpenAPI document this app serves,
 * never by hand, so that a route added with its schema appears here too. A
 * route's entitlement is its operation's `x-entitlement` when it has one,
 * otherwise the "Requires `…`" its description already states for people
 * (docs/decisions.md 30).
 */
import type { FastifyInstance } from 'fastify';
import { compress, type Encoding, encodingFor } from '../compression.js';
import { cleanDocument } from '../openapi.js';

export const TEXT_TYPE = 'text/plain; charset=utf-8';

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: { enum?: unknown[]; anyOf?: Array<{ enum?: unknown[]; const?: unknown }>; default?: unknown };
}

export interface Operation {
  summary?: string;
  description?: string;
  deprecated?: boolean;
  parameters?: Parameter[];
  'x-entitlement'?: unknown;
  'x-entitlement-at'?: unknown;
}

export interface Document {
  info: { title: string; description?: string };
  paths: Record<string, Record<string, Operation>>;
}

const REQUIRES = /Requires `([^`]+)`/;

/** The entitlement an operation needs, as its document states it; may name a parameter (`<source>`). */
export function entitlementOf(op: Operation): string | undefined {
  const declared = op['x-entitlement'];
  if (typeof declared === 'string' && declared !== '') return declared;
  return REQUIRES.exec(op.description ?? '')?.[1];
}

/** The values a parameter takes, its default first marked as such: `parallel (default), official`. */
function valuesOf(p: Parameter | undefined): string {
  const schema = p?.schema;
  const values = schema?.enum ?? schema?.anyOf?.flatMap((s) => s.enum ?? ('const' in s ? [s.const] : []));
  if (!values?.length) return '';
  return values.map((v) => (v === schema?.default ? `${String(v)} (default)` : String(v))).join(', ');
}

function endpointLine(path: string, method: string, op: Operation): string {
  const params = (op.parameters ?? []).filter((p) => p.in === 'query');
  const query = params.length
    ? ` (query: ${params.map((p) => `\`${p.name}\`${p.required ? ' required' : ''}`).join(', ')})`
    : '';
  const summary = (op.summary ?? '').replace(/\.$/, '');
  const entitlement = entitlementOf(op);
  let needs = '';
  if (entitlement) {
    // A template such as `rates:<source>:latest:read` says which values fill it in.
    const filled = [...entitlement.matchAll(/<([A-Za-z0-9_]+)>/g)]
      .map(([, name]) => [name, valuesOf(params.find((p) => p.name === name))] as const)
      .filter(([, values]) => values !== '')
      .map(([name, values]) => `; \`${name}\`: ${values}`)
      .join('');
    needs = ` Entitlement: \`${entitlement}\`${filled}.`;
    // `at=` reads the history instead (decisions 123).
    const at = op['x-entitlement-at'];
    if (typeof at === 'string') needs += ` With \`at\`: \`${at}\`.`;
  }
  const deprecated = op.deprecated ? ' Deprecated.' : '';
  return `- \`${method.toUpperCase()} ${path}\`${query}: ${summary}.${deprecated}${needs}`;
}

/** The text of /llms.txt for a document: pure, so that it can be checked without a server. */
export function llmsText(doc: Document): string {
  const [summary = '', ...details] = (doc.info.description ?? '').split(/\n{2,}/);
  const endpoints: string[] = [];
  for (const [path, operations] of Object.entries(doc.paths)) {
    if (!path.startsWith('/v1/')) continue;
    for (const [method, op] of Object.entries(operations)) endpoints.push(endpointLine(path, method, op));
  }
  return [
    `# ${doc.info.title}`,
    '',
    `> ${summary.replace(/\s*\n\s*/g, ' ')}`,
    '',
    ...details.flatMap((d) => [d, '']),
    '## Authentication',
    '',
    'Every `/v1` endpoint needs an API key, sent as `Authorization: Bearer <key>` or as `X-API-Key: <key>`. ' +
      'A key reads only what both it and its grant are entitled to; any other request is refused with 403 ' +
      '`insufficient_scope` and costs nothing. This file, `/openapi.json` and `/docs/` need no key.',
    '',
    'Errors are `{ "data": null, "error": { "status", "code", "message", "details" }, "meta": { "requestId" } }`. ' +
      '429 (`rate_limited`, `quota_exceeded`) and 503 carry `Retry-After` in seconds. Every answer carries ' +
      '`X-Request-Id`, equal to `meta.requestId`: quote it when reporting a problem.',
    '',
    '## Endpoints',
    '',
    'All are GET (HEAD works too) and answer JSON. Paginated ones return `meta.nextCursor`: send it back as ' +
      '`cursor` with the same filters for the next page. The latest rates and gold records carry `change` since ' +
      'the previous day (`since`, and `amount` and `percent` of buy and sell; null when the series has nothing ' +
      'in the 7 days before the day of the record), the premium items the change of their percent in ' +
      '`percentPoints`. `at=<ISO timestamp>` on the latest rates and gold gives the records as of that instant.',
    '',
    'The three history endpoints take `interval=day|week|month` (UTC; weeks start on Monday): each item is then ' +
      'one interval holding an observation of the window, with `open`, `high`, `low` and `close` of buy and ' +
      'sell (of the daily premium percent for the premium), newest first, paged the same way; the window may ' +
      'then span up to 3,660 days.',
    '',
    ...endpoints,
    '',
    '## Documentation',
    '',
    '- [OpenAPI 3.1 document](/openapi.json): every parameter, response and error, machine-readable.',
    '- [API reference](/docs/): the same document, rendered for people.',
    '- [Methodology](/methodology.md): how the parallel rates and gold prices are computed from several ' +
      'reporters, and what `quality` means.',
    '',
  ].join('\n');
}

export function llmsRoutes(app: FastifyInstance): void {
  // Built on the first request, when every route is registered; the routes do not change afterwards.
  let body: Buffer | undefined;
  const packed = new Map<Encoding, Buffer>();
  app.get('/llms.txt', async (request, reply) => {
    body ??= Buffer.from(llmsText(cleanDocument(app.swagger()) as unknown as Document));
    reply.header('content-type', TEXT_TYPE);
    reply.header('cache-control', 'public, max-age=3600');
    reply.header('vary', 'accept-encoding');
    const encoding = encodingFor(request.headers['accept-encoding'], body.length);
    if (!encoding) return body;
    reply.header('content-encoding', encoding);
    let bytes = packed.get(encoding);
    if (!bytes) {
      bytes = compress(body, encoding);
      packed.set(encoding, bytes);
    }
    return bytes;
  });
}
