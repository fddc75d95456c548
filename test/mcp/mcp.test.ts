/**
 * The MCP server (packages/mcp, decisions §12) against the real service:
 * `mds serve` as a child process on a fresh SQLite file with the sample data,
 * and `npm run --silent mcp` driven over stdio by the SDK's own Client, as an
 * agent's host would. Needs `npm run build` (npm test builds first).
 *
 * - one tool per /v1 operation of the served document, deprecated ones left
 *   out, named by its operationId or its method and path, with the
 *   operation's parameters;
 * - every tool answers the API's { data, meta } for valid input, equal to the
 *   same request made directly, and every call costs its unit;
 * - a key without the entitlement and an exhausted per-minute limit come back
 *   as tool errors carrying the status, `code` and `requestId`;
 * - it refuses to start without MDS_BASE_URL or MDS_API_KEY, and writes
 *   nothing but protocol messages on stdout.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OpenApiDocument, type Operation, toolName, toolsFrom } from '../../packages/mcp/src/tools.js';
import { ENTITLEMENTS } from '../../src/domain/scopes.js';
import { seedSample } from '../../src/import/seed.js';
import { generateSample } from '../../src/sample/generate.js';
import { openStore } from '../../src/storage/open.js';
import { createAccount, createGrant, createKey } from '../support/keys.js';
import { type ServerProcess, spawnServer } from '../support/server-process.js';
import { withinOneMinute } from '../support/wait.js';

const DAY = 86_400_000;
const END = new Date(Date.now() - DAY).toISOString().slice(0, 10);
const MCP_MAIN = resolve('packages/mcp/dist/main.js');

/** Valid input for the operations whose answer is worth a closer look; others get their documented examples. */
const ARGUMENTS: Record<string, Record<string, unknown>> = {
  '/v1/assets': { type: 'currency' },
  '/v1/rates/latest': { currency: 'EUR,USD', source: 'official' },
  '/v1/rates/history': { currency: 'EUR', source: 'parallel', limit: 5 },
  '/v1/market/premium': { currency: 'EUR,USD' },
  '/v1/gold/history': { limit: 4 },
};

function argumentsFor(path: string, op: Operation): Record<string, unknown> {
  if (ARGUMENTS[path]) return ARGUMENTS[path];
  const args: Record<string, unknown> = {};
  for (const p of op.parameters ?? []) if (p.required) args[p.name] = p.example;
  return args;
}

/** The environment of this process without the MCP server's own variables, plus `extra`. */
function envWith(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && k !== 'MDS_BASE_URL' && k !== 'MDS_API_KEY') env[k] = v;
  return { ...env, ...extra };
}

// biome-ignore lint/suspicious/noExplicitAny: tool results are read loosely by the tests
type Json = Record<string, any>;

/** A tool error's body: `{ error: { status, code, message, details? }, meta: { requestId } }`. */
function errorOf(result: CallToolResult): Json {
  expect(result.isError, JSON.stringify(result)).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  const first = result.content[0];
  expect(first?.type).toBe('text');
  return JSON.parse((first as { text: string }).text) as Json;
}

/** A tool success: the structured `{ data, meta }`, checked equal to its JSON text. */
function answerOf(result: CallToolResult): Json {
  expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false);
  const structured = result.structuredContent as Json;
  expect(Object.keys(structured).sort()).toEqual(['data', 'meta']);
  expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual(structured);
  expect(structured.meta.requestId).toMatch(/^req_/);
  return structured;
}

interface Session {
  client: Client;
  stderr: () => string;
}

/** `npm run --silent mcp` from the repository root, as a host configured per the README starts it. */
async function connect(baseUrl: string, apiKey: string): Promise<Session> {
  const transport = new StdioClientTransport({
    command: 'npm',
    args: ['run', '--silent', 'mcp'],
    cwd: resolve('.'),
    env: envWith({ MDS_BASE_URL: baseUrl, MDS_API_KEY: apiKey }),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => {
    stderr += d;
  });
  const client = new Client({ name: 'mds-mcp-test', version: '1.0.0' });
  try {
    await client.connect(transport);
  } catch (err) {
    throw new Error(`the MCP server did not start: ${String(err)}\n${stderr}`);
  }
  return { client, stderr: () => stderr };
}

describe('MCP server over stdio against the real service', () => {
  let dir: string;
  let server: ServerProcess;
  let doc: OpenApiDocument;
  let key: string;
  let full: Session;
  let narrow: Session;
  let slow: Session;

  beforeAll(async () => {
    expect(existsSync(MCP_MAIN), `${MCP_MAIN} is missing: run \`npm run build\``).toBe(true);
    dir = mkdtempSync(join(tmpdir(), 'mds-mcp-'));
    const db = join(dir, 'mds.sqlite');
    const store = openStore(db);
    let narrowKey: string;
    let slowKey: string;
    try {
      await store.migrate();
      await seedSample(store, generateSample({ endDate: END }));
      const grantFor = async (rpm: number) => {
        const account = await createAccount(store, { name: 'MCP test' });
        return createGrant(store, {
          accountId: account.id,
          plan: 'test',
          scopes: [...ENTITLEMENTS],
          monthlyRequestLimit: 1_000_000,
          requestsPerMinute: rpm,
          validFrom: Date.now() - DAY,
        });
      };
      const grant = await grantFor(100_000);
      key = (await createKey(store, { grantId: grant.id })).key;
      narrowKey = (await createKey(store, { grantId: grant.id, scopes: ['assets:read'] })).key;
      slowKey = (await createKey(store, { grantId: (await grantFor(1)).id })).key;
    } finally {
      await store.close();
    }
    server = await spawnServer({ db });
    doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as OpenApiDocument;
    [full, narrow, slow] = await Promise.all([
      connect(server.url, key),
      connect(server.url, narrowKey),
      connect(server.url, slowKey),
    ]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([full, narrow, slow].map((s) => s?.client.close()));
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** The operations the tools follow: the document's /v1 GETs, the deprecated ones left out. */
  const v1Operations = () =>
    Object.entries(doc.paths)
      .filter(([path, item]) => path.startsWith('/v1/') && item.get?.deprecated !== true)
      .map(([path, item]) => ({ path, op: item.get! }));

  it('lists one tool per /v1 operation of the served document, with its parameters', async () => {
    const { tools } = await full.client.listTools();
    const operations = v1Operations();
    expect(operations.length).toBeGreaterThanOrEqual(8);
    expect(tools).toHaveLength(operations.length);
    const byName = new Map<string, Tool>(tools.map((t) => [t.name, t]));
    for (const { path, op } of operations) {
      const name = toolName('get', path, op.operationId);
      if (!op.operationId) expect(name).toBe(`get${path.replaceAll('/', '_')}`);
      const tool = byName.get(name);
      expect(tool, `${name} for ${path}`).toBeDefined();
      expect(tool!.title).toBe(op.summary);
      expect(tool!.description).toContain(op.description ?? '');
      const parameters = op.parameters ?? [];
      expect(Object.keys(tool!.inputSchema.properties ?? {}).sort()).toEqual(
        parameters.map((p) => p.name).sort(),
      );
      expect([...(tool!.inputSchema.required ?? [])].sort()).toEqual(
        parameters
          .filter((p) => p.required)
          .map((p) => p.name)
          .sort(),
      );
      expect(tool!.outputSchema?.type).toBe('object');
      expect(tool!.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    }
    // The latest tools take `at` (decisions 123).
    for (const id of ['getLatestRates', 'getLatestGold']) {
      expect(Object.keys(byName.get(id)?.inputSchema.properties ?? {}), id).toContain('at');
    }
    // The deprecated alias is no tool: its successor answers the same (docs/decisions.md 63).
    const alias = doc.paths['/v1/rates/historical']?.get;
    expect(alias?.deprecated).toBe(true);
    expect(byName.has(toolName('get', '/v1/rates/historical', alias?.operationId))).toBe(false);
    expect(tools.some((t) => /deprecat/i.test(`${t.title} ${t.description}`))).toBe(false);
    // A key's entitlements do not change the list: the tools follow the document.
    expect((await narrow.client.listTools()).tools.map((t) => t.name)).toEqual(tools.map((t) => t.name));
    expect(full.client.getServerVersion()).toMatchObject({ name: 'mds-mcp', version: '1.0.0' });
    expect(full.client.getInstructions()).toContain('Algerian dinar');
  });

  it('answers every tool with the API’s data and meta, as the same request does directly', async () => {
    for (const { path, op } of v1Operations()) {
      const args = argumentsFor(path, op);
      // The SDK's Client also checks the structured content against the tool's output schema.
      const viaMcp = answerOf(
        (await full.client.callTool({
          name: toolName('get', path, op.operationId),
          arguments: args,
        })) as CallToolResult,
      );
      const query = new URLSearchParams(
        Object.entries(args).map(([k, v]) => [k, String(v)] as [string, string]),
      ).toString();
      const direct = await fetch(`${server.url}${path}${query ? `?${query}` : ''}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(direct.status, path).toBe(200);
      const body = (await direct.json()) as Json;
      expect(viaMcp.meta.requestId).not.toBe(body.meta.requestId);
      if (path === '/v1/me') {
        // Usage moves with every request; who is calling does not.
        expect(viaMcp.data.key).toEqual({ ...body.data.key, lastUsedAt: viaMcp.data.key.lastUsedAt });
        expect(viaMcp.data.grant).toEqual(body.data.grant);
        continue;
      }
      if (path === '/v1/usage/daily') {
        // The counts move with every request (each counts itself); the grant and the window do not.
        expect({ ...viaMcp.data, requests: 0, days: [] }).toEqual({ ...body.data, requests: 0, days: [] });
        expect(viaMcp.data.days.map((d: Json) => d.day)).toEqual(body.data.days.map((d: Json) => d.day));
        continue;
      }
      expect(viaMcp.data, path).toEqual(body.data);
      expect({ ...viaMcp.meta, requestId: null }, path).toEqual({ ...body.meta, requestId: null });
      // Records of rates and gold pass through whole, their quality included (docs/decisions.md 115).
      if (/^\/v1\/(rates|gold)\//.test(path))
        for (const record of viaMcp.data)
          expect(record.quality?.method, path).toMatch(/^(consensus|import)$/);
    }
  });

  it('passes the arguments as the query: the history tool pages with meta.nextCursor', async () => {
    const call = async (args: Record<string, unknown>) =>
      answerOf(
        (await full.client.callTool({
          name: toolFor('/v1/rates/history'),
          arguments: args,
        })) as CallToolResult,
      );
    const first = await call({ currency: 'EUR', limit: 2, source: 'official' });
    expect(first.data).toHaveLength(2);
    expect(first.data.every((r: Json) => r.source === 'official')).toBe(true);
    expect(typeof first.meta.nextCursor).toBe('string');
    const second = await call({
      currency: 'EUR',
      limit: 2,
      source: 'official',
      cursor: first.meta.nextCursor,
    });
    expect(second.data).toHaveLength(2);
    expect(Date.parse(second.data[0].updatedAt)).toBeLessThan(Date.parse(first.data[1].updatedAt));
  });

  const toolFor = (path: string) => toolName('get', path, doc.paths[path]!.get!.operationId);

  it('the history tools take `interval` and answer its intervals as the API does (docs/decisions.md 128)', async () => {
    const { tools } = await full.client.listTools();
    for (const path of ['/v1/rates/history', '/v1/gold/history', '/v1/market/premium/history']) {
      const tool = tools.find((t) => t.name === toolFor(path));
      expect(tool?.inputSchema.properties?.interval, path).toMatchObject({ enum: ['day', 'week', 'month'] });
      const args = { ...argumentsFor(path, doc.paths[path]!.get!), interval: 'week', limit: 3 };
      // The SDK's Client checks the intervals against the tool's output schema.
      const viaMcp = answerOf(
        (await full.client.callTool({ name: toolFor(path), arguments: args })) as CallToolResult,
      );
      const query = new URLSearchParams(
        Object.entries(args).map(([k, v]) => [k, String(v)] as [string, string]),
      ).toString();
      const direct = (await (
        await fetch(`${server.url}${path}?${query}`, { headers: { authorization: `Bearer ${key}` } })
      ).json()) as Json;
      expect(viaMcp.data, path).toEqual(direct.data);
      expect(viaMcp.data.length, path).toBeGreaterThan(0);
      for (const item of viaMcp.data)
        expect(item, path).toMatchObject({ interval: 'week', buy: { open: expect.any(Number) } });
    }
  });

  it('is an ordinary client: every call costs one unit', async () => {
    const used = async () =>
      answerOf((await full.client.callTool({ name: toolFor('/v1/me'), arguments: {} })) as CallToolResult)
        .data.usage.requestsUsed as number;
    const before = await used();
    await full.client.callTool({ name: toolFor('/v1/assets'), arguments: {} });
    await full.client.callTool({ name: toolFor('/v1/gold/latest'), arguments: {} });
    expect(await used()).toBe(before + 3);
  });

  it('returns a refused entitlement as a tool error with status, code and requestId', async () => {
    answerOf(
      (await narrow.client.callTool({ name: toolFor('/v1/assets'), arguments: {} })) as CallToolResult,
    );
    const refused = errorOf(
      (await narrow.client.callTool({
        name: toolFor('/v1/rates/latest'),
        arguments: { currency: 'EUR' },
      })) as CallToolResult,
    );
    expect(refused.error).toMatchObject({
      status: 403,
      code: 'insufficient_scope',
      details: [{ entitlement: 'rates:parallel:latest:read' }],
    });
    expect(refused.meta.requestId).toMatch(/^req_/);
  });

  it('returns an exhausted per-minute limit as a tool error with status, code, requestId and Retry-After', async () => {
    await withinOneMinute(3_000);
    const name = toolFor('/v1/assets');
    answerOf((await slow.client.callTool({ name, arguments: {} })) as CallToolResult);
    const limited = errorOf((await slow.client.callTool({ name, arguments: {} })) as CallToolResult);
    expect(limited.error).toMatchObject({ status: 429, code: 'rate_limited' });
    expect(limited.error.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(limited.error.retryAfterSeconds).toBeLessThanOrEqual(60);
    expect(limited.meta.requestId).toMatch(/^req_/);
  });

  it('returns invalid input as the API’s 400, with every problem in details', async () => {
    const invalid = errorOf(
      (await full.client.callTool({
        name: toolFor('/v1/rates/history'),
        arguments: { limit: 0 },
      })) as CallToolResult,
    );
    expect(invalid.error).toMatchObject({ status: 400, code: 'invalid_parameter' });
    expect(invalid.error.details.map((d: Json) => d.parameter).sort()).toEqual(['currency', 'limit']);
    expect(invalid.meta.requestId).toMatch(/^req_/);
    await expect(full.client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(
      /Unknown tool/,
    );
  });

  it('leaves deprecated operations out of the tools', () => {
    const names = toolsFrom({
      info: { title: 't', version: '1' },
      paths: {
        '/v1/rates/history': { get: { operationId: 'getRatesHistory' } },
        '/v1/rates/historical': { get: { operationId: 'getRatesHistoricalDeprecated', deprecated: true } },
        '/v1/old': { get: { deprecated: true } },
      },
    }).map((t) => t.tool.name);
    expect(names).toEqual(['getRatesHistory']);
  });

  it('names a tool from the method and path when the operation has no operationId', () => {
    const names = toolsFrom({
      info: { title: 't', version: '1' },
      paths: {
        '/v1/rates/latest': { get: {} },
        '/v1/market/premium/history': { get: { operationId: 'getPremiumHistory' } },
        '/healthz': { get: {} },
      },
    }).map((t) => t.tool.name);
    expect(names).toEqual(['get_v1_rates_latest', 'getPremiumHistory']);
  });

  it('refuses to start, saying why on stderr, without MDS_BASE_URL or MDS_API_KEY or a service', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const { port } = closed.address() as { port: number };
    await new Promise((r) => closed.close(r));
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{}, /MDS_BASE_URL and MDS_API_KEY are not set/],
      [{ MDS_API_KEY: key }, /MDS_BASE_URL is not set/],
      [{ MDS_BASE_URL: server.url }, /MDS_API_KEY is not set/],
      [{ MDS_BASE_URL: 'ftp://example.com', MDS_API_KEY: key }, /MDS_BASE_URL must be http/],
      [
        { MDS_BASE_URL: `http://127.0.0.1:${port}`, MDS_API_KEY: key },
        /cannot read http:\/\/127\.0\.0\.1:\d+\/openapi\.json/,
      ],
    ];
    for (const [vars, message] of cases) {
      const run = spawnSync(process.execPath, [MCP_MAIN], { env: envWith(vars), input: '', timeout: 10_000 });
      expect(run.status, JSON.stringify(vars)).toBe(1);
      expect(run.stdout.toString()).toBe('');
      expect(run.stderr.toString()).toMatch(message);
      expect(run.stderr.toString()).not.toContain(key);
    }
  });

  it('writes nothing but JSON-RPC messages on stdout, and ends with its input', async () => {
    const proc: ChildProcess = spawn('npm', ['run', '--silent', 'mcp'], {
      cwd: resolve('.'),
      env: envWith({ MDS_BASE_URL: server.url, MDS_API_KEY: key }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    const answered = new Promise<void>((done) => {
      proc.stdout!.on('data', (d) => {
        stdout += d;
        if (stdout.includes('"id":2')) done();
      });
    });
    const send = (message: object) => proc.stdin!.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    await answered;
    const exited = once(proc, 'exit');
    proc.stdin!.end();
    const [code] = await exited;
    expect(code).toBe(0);
    const lines = stdout.split('\n').filter((l) => l !== '');
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    expect(JSON.parse(lines[1]!).result.tools.length).toBe(v1Operations().length);
  });
});
