#!/usr/bin/env node
/**
 * The Market Data Service as an MCP server on stdio, for language-model
 * agents (decisions §12). `npm run --silent mcp` at the repository root, with
 * `MDS_BASE_URL` (where the API is served) and `MDS_API_KEY`.
 *
 * stdout is the protocol channel: nothing but MCP messages is ever written
 * there. Diagnostics go to stderr, and never contain the key.
 */
import { readFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { type ApiTool, type Connection, callApi, joinUrl, type OpenApiDocument, toolsFrom } from './tools.js';

const NAME = 'mds-mcp';
const { version: VERSION } = JSON.parse(
  readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
) as {
  version: string;
};
const START_TIMEOUT_MS = 15_000;

class StartError extends Error {}

const say = (line: string) => process.stderr.write(`${NAME}: ${line}\n`);

/** The base URL without credentials or query, as it may be printed. */
function configuredBase(env: NodeJS.ProcessEnv): { baseUrl: string; apiKey: string } {
  const missing = ['MDS_BASE_URL', 'MDS_API_KEY'].filter((name) => !env[name]?.trim());
  if (missing.length) {
    throw new StartError(
      `${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not set. ` +
        'Set MDS_BASE_URL to where the Market Data Service is served (e.g. http://127.0.0.1:8080) ' +
        'and MDS_API_KEY to an API key (mds_live_…).',
    );
  }
  let url: URL;
  try {
    url = new URL(env.MDS_BASE_URL!.trim());
  } catch {
    throw new StartError('MDS_BASE_URL is not a URL: expected e.g. http://127.0.0.1:8080');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new StartError(`MDS_BASE_URL must be http:// or https://, not ${url.protocol}//`);
  }
  if (url.username || url.password || url.search || url.hash) {
    throw new StartError(
      'MDS_BASE_URL must not carry credentials, a query or a fragment: the key goes in MDS_API_KEY',
    );
  }
  const local = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (url.protocol === 'http:' && !local)
    say(`warning: ${url.origin} is plain HTTP: the API key crosses the network unencrypted`);
  return { baseUrl: `${url.origin}${url.pathname.replace(/\/+$/, '')}`, apiKey: env.MDS_API_KEY!.trim() };
}

/** The served document, so that the tools follow the API this key will call. */
async function loadDocument(baseUrl: string): Promise<OpenApiDocument> {
  const url = joinUrl(baseUrl, '/openapi.json');
  let res: Response;
  try {
    res = await fetch(url, {
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(START_TIMEOUT_MS),
    });
  } catch (err) {
    const reason =
      err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
    throw new StartError(`cannot read ${url}: ${reason}. Is the service running at MDS_BASE_URL?`);
  }
  if (res.status !== 200)
    throw new StartError(`${url} answered ${res.status}: is MDS_BASE_URL the service's base URL?`);
  const doc = (await res.json().catch(() => null)) as OpenApiDocument | null;
  if (!doc || typeof doc.paths !== 'object' || doc.paths === null || typeof doc.info !== 'object') {
    throw new StartError(`${url} is not an OpenAPI document`);
  }
  return doc;
}

function instructions(doc: OpenApiDocument): string {
  const summary = (doc.info.description ?? '').split(/\n{2,}/)[0] ?? '';
  return (
    `${doc.info.title}. ${summary}\n\n` +
    'Each tool is one request to the API with the configured key and returns its { data, meta }. ' +
    'Every answered call costs one unit of the key’s monthly quota and counts against its per-minute limit; ' +
    'a key reads only the entitlements it was given. Errors carry error.code and meta.requestId ' +
    '(quote the request id when reporting a problem). Paginated results give meta.nextCursor: pass it as ' +
    '`cursor` with the same other arguments for the next page.'
  );
}

async function main(): Promise<void> {
  const { baseUrl, apiKey } = configuredBase(process.env);
  const doc = await loadDocument(baseUrl);
  const tools = toolsFrom(doc);
  if (tools.length === 0) throw new StartError(`${baseUrl}/openapi.json documents no /v1 operation`);
  const byName = new Map<string, ApiTool>(tools.map((t) => [t.tool.name, t]));
  const connection: Connection = { baseUrl, apiKey, userAgent: `${NAME}/${VERSION}` };

  // The low-level Server: these tools are defined at run time by JSON Schemas from
  // the document, which McpServer would want as Zod schemas (docs/decisions.md 31).
  const server = new Server(
    { name: NAME, title: doc.info.title, version: VERSION },
    { capabilities: { tools: {} }, instructions: instructions(doc) },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: tools.map((t) => t.tool) }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const api = byName.get(request.params.name);
    if (!api) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    return callApi(api, request.params.arguments ?? {}, connection, extra.signal);
  });

  const transport = new StdioServerTransport();
  await server.connect(transport);
  // The client closing our stdin is the end of the session.
  process.stdin.once('end', () => {
    void server.close().finally(() => process.exit(0));
  });
  say(`${tools.length} tools from ${baseUrl}/openapi.json (${doc.info.title} ${doc.info.version})`);
}

main().catch((err: unknown) => {
  say(
    err instanceof StartError
      ? err.message
      : `unexpected error: ${err instanceof Error ? err.stack : String(err)}`,
  );
  process.exit(1);
});
