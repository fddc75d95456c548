/**
 * The MCP tools of the Market Data Service, made from the OpenAPI document the
 * service serves: one tool per `/v1` operation that is not deprecated, its
 * input schema from the operation's parameters, its output schema from the
 * 200 answer's body. A new endpoint becomes a tool when the service documents
 * it, without a release of this package.
 *
 * Calling a tool is one ordinary API request with the configured key: no
 * retry, no cache, so every call costs what the same request costs any client.
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';

type JsonSchema = Record<string, unknown>;

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  deprecated?: boolean;
  example?: unknown;
  schema?: JsonSchema;
}

export interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  deprecated?: boolean;
  parameters?: Parameter[];
  responses?: Record<string, { content?: Record<string, { schema?: JsonSchema }> }>;
}

export interface OpenApiDocument {
  info: { title: string; version: string; description?: string };
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

/** A tool with what calling it needs. */
export interface ApiTool {
  tool: Tool;
  method: 'GET';
  path: string;
  pathParameters: string[];
}

const COMPONENT_REF = '#/components/schemas/';

/** MCP tool names: 1 to 128 of `A-Z a-z 0-9 _ - .`. */
const sanitize = (name: string) =>
  name
    .replace(/[^A-Za-z0-9_.-]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 128);

/** `operationId` when the document gives one, else `get_v1_rates_latest` from the method and path. */
export function toolName(method: string, path: string, operationId?: string): string {
  return sanitize(operationId || `${method.toLowerCase()}${path}`.replace(/[^A-Za-z0-9]+/g, '_'));
}

/**
 * The component schemas `schema` refers to, directly or through each other,
 * moved under `$defs` so that the tool's schema stands alone.
 */
function standalone(schema: JsonSchema, components: Record<string, JsonSchema>): JsonSchema {
  const defs: Record<string, unknown> = {};
  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewrite);
    if (value === null || typeof value !== 'object') return value;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string' && v.startsWith(COMPONENT_REF)) {
        const name = v.slice(COMPONENT_REF.length);
        if (!(name in defs) && components[name]) {
          defs[name] = true; // placeholder: a schema that refers to itself stops here
          defs[name] = rewrite(components[name]);
        }
        out[k] = `#/$defs/${name}`;
      } else {
        out[k] = rewrite(v);
      }
    }
    return out;
  };
  const body = rewrite(schema) as JsonSchema;
  return Object.keys(defs).length ? { ...body, $defs: defs } : body;
}

function inputSchema(parameters: Parameter[], components: Record<string, JsonSchema>): Tool['inputSchema'] {
  const properties: Record<string, object> = {};
  const required: string[] = [];
  for (const p of parameters) {
    properties[p.name] = {
      ...(p.schema ?? { type: 'string' }),
      ...(p.description ? { description: p.description } : {}),
      ...(p.example !== undefined ? { examples: [p.example] } : {}),
      ...(p.deprecated ? { deprecated: true } : {}),
    };
    if (p.required) required.push(p.name);
  }
  return standalone(
    {
      type: 'object',
      properties,
      ...(required.length ? { required } : {}),
      // The API refuses an unknown parameter (400): say so before the call.
      additionalProperties: false,
    },
    components,
  ) as Tool['inputSchema'];
}

function outputSchema(op: Operation, components: Record<string, JsonSchema>): Tool['outputSchema'] {
  let schema = op.responses?.['200']?.content?.['application/json']?.schema;
  const ref = schema?.$ref;
  if (typeof ref === 'string' && ref.startsWith(COMPONENT_REF))
    schema = components[ref.slice(COMPONENT_REF.length)];
  if (schema?.type !== 'object') return undefined;
  return standalone(schema, components) as Tool['outputSchema'];
}

function toolDescription(op: Operation): string {
  const parts = [op.summary ? `${op.summary.replace(/\.$/, '')}.` : '', op.description ?? ''];
  parts.push(
    'Returns the API answer as { data, meta }. Each call is one API request with the configured key and ' +
      'costs what that request costs (one unit of the monthly quota; refused requests other than 404 cost ' +
      'nothing). Errors come back with their status, code and requestId.',
  );
  return parts.filter(Boolean).join(' ');
}

/**
 * One tool per GET operation under /v1, in document order, deprecated ones
 * left out: a deprecated operation has a successor that answers the same, and
 * a model offered both may pick the one that is going away (docs/decisions.md 63).
 */
export function toolsFrom(doc: OpenApiDocument): ApiTool[] {
  const components = doc.components?.schemas ?? {};
  const tools: ApiTool[] = [];
  const taken = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths)) {
    if (!path.startsWith('/v1/')) continue;
    // The API is read-only: every operation is a GET, and HEAD is GET without a body.
    const op = item.get;
    if (!op || op.deprecated === true) continue;
    let name = toolName('get', path, op.operationId);
    for (let n = 2; taken.has(name); n++) name = `${toolName('get', path, op.operationId)}_${n}`;
    taken.add(name);
    const parameters = (op.parameters ?? []).filter((p) => p.in === 'query' || p.in === 'path');
    const output = outputSchema(op, components);
    tools.push({
      method: 'GET',
      path,
      pathParameters: parameters.filter((p) => p.in === 'path').map((p) => p.name),
      tool: {
        name,
        title: op.summary ?? `GET ${path}`,
        description: toolDescription(op),
        inputSchema: inputSchema(parameters, components),
        ...(output ? { outputSchema: output } : {}),
        annotations: {
          title: op.summary ?? `GET ${path}`,
          readOnlyHint: true,
          destructiveHint: false,
          idempotentHint: true,
          openWorldHint: true,
        },
      },
    });
  }
  return tools;
}

export interface Connection {
  /** Where the API is served; a path prefix is kept. */
  baseUrl: string;
  apiKey: string;
  userAgent: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
}

/** `https://host/prefix` + `/v1/…`, whether or not the base ends with a slash. */
export const joinUrl = (baseUrl: string, path: string) => `${baseUrl.replace(/\/+$/, '')}${path}`;

const asText = (value: unknown) => JSON.stringify(value);

function toolError(error: Record<string, unknown>, requestId: string | null): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: asText({ error, meta: { requestId } }) }] };
}

const argumentText = (value: unknown) =>
  Array.isArray(value)
    ? value.map(String).join(',')
    : typeof value === 'object'
      ? JSON.stringify(value)
      : String(value);

/**
 * One API request for a tool call. A 200's `{ data, meta }` is the result, as
 * structured content and as JSON text. Anything else is a tool error whose
 * text is `{ error: { status, code, message, details? }, meta: { requestId } }`,
 * the API's own error body, with `retryAfterSeconds` from `Retry-After`.
 */
export async function callApi(
  api: ApiTool,
  args: Record<string, unknown>,
  connection: Connection,
  signal?: AbortSignal,
): Promise<CallToolResult> {
  let path = api.path;
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(args)) {
    // Models often send null for an optional argument they mean to leave out.
    if (value === undefined || value === null) continue;
    if (api.pathParameters.includes(name))
      path = path.replace(`{${name}}`, encodeURIComponent(argumentText(value)));
    else query.append(name, argumentText(value));
  }
  const missing = api.pathParameters.filter((name) => path.includes(`{${name}}`));
  if (missing.length) {
    return toolError(
      {
        status: null,
        code: 'invalid_argument',
        message: `Missing required argument: ${missing.join(', ')}.`,
      },
      null,
    );
  }
  const search = query.toString();
  const url = joinUrl(connection.baseUrl, path) + (search ? `?${search}` : '');
  const timeout = AbortSignal.timeout(connection.timeoutMs ?? 30_000);
  let res: Response;
  let text: string;
  try {
    res = await (connection.fetch ?? fetch)(url, {
      headers: {
        authorization: `Bearer ${connection.apiKey}`,
        accept: 'application/json',
        'user-agent': connection.userAgent,
      },
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
    text = await res.text();
  } catch (err) {
    const reason =
      err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
    return toolError(
      {
        status: null,
        code: 'service_unreachable',
        message: `No answer from ${connection.baseUrl}: ${reason}`,
      },
      null,
    );
  }
  const headerId = res.headers.get('x-request-id');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const envelope = body !== null && typeof body === 'object' ? (body as Record<string, unknown>) : {};
  const meta = envelope.meta as { requestId?: unknown } | undefined;
  const requestId = typeof meta?.requestId === 'string' ? meta.requestId : headerId;
  if (res.status === 200 && 'data' in envelope && meta) {
    const result = { data: envelope.data, meta };
    return { content: [{ type: 'text', text: asText(result) }], structuredContent: result };
  }
  const retryAfter = Number(res.headers.get('retry-after'));
  const error: Record<string, unknown> =
    envelope.error !== null && typeof envelope.error === 'object'
      ? { ...(envelope.error as Record<string, unknown>) }
      : {
          status: res.status,
          code: 'unexpected_response',
          message: `HTTP ${res.status} with ${res.headers.get('content-type') ?? 'no content type'} instead of the API's JSON.`,
        };
  error.status ??= res.status;
  if (Number.isInteger(retryAfter) && retryAfter > 0) error.retryAfterSeconds = retryAfter;
  return toolError(error, requestId);
}
