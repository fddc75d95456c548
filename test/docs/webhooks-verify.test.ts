/**
 * docs/webhooks.md, "Verifying a delivery": its two receivers run as written,
 * the TypeScript one on plain Node (compiled with the repository's
 * TypeScript, and type-checked strict as `receiver.mts`) with the
 * `standardwebhooks` package, the Python one in a new venv with
 * packages/python installed as a customer installs it. Deliveries signed by
 * the reference package (the one our sender uses) are posted to each: a good
 * one, a tampered one, one signed 10 minutes ago, one signed with two secrets
 * during a rotation, and a duplicate. Then mds_client.verify_webhook is
 * checked against the reference package case by case: the same signature
 * bytes, and the same verdict on the same delivery at the same clock.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { EVENT_TYPES } from '../../src/domain/webhooks.js';
import { stopChild, track } from '../support/children.js';
import { customerEnv, fencedBlocks, REPO, runOk, strictTsc, venvWithClient } from '../support/python.js';
import { waitFor } from '../support/wait.js';

const DOC = readFileSync(join(REPO, 'docs', 'webhooks.md'), 'utf8');

/** The text under `## title`, up to the next `## ` heading outside a code block. */
function section(markdown: string, title: string): string {
  const lines = markdown.split('\n');
  const start = lines.indexOf(`## ${title}`);
  if (start < 0) throw new Error(`docs/webhooks.md has no section "${title}"`);
  let fenced = false;
  let end = start + 1;
  for (; end < lines.length; end++) {
    const line = lines[end]!;
    if (line.startsWith('```')) fenced = !fenced;
    else if (!fenced && /^#{1,2} /.test(line)) break;
  }
  return lines.slice(start + 1, end).join('\n');
}

const verifying = section(DOC, 'Verifying a delivery');
const tsBlocks = fencedBlocks(verifying, 'ts');
const pyBlocks = fencedBlocks(verifying, 'python');

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;
const sign = (secret: string, id: string, seconds: number, body: string) =>
  new Webhook(secret).sign(id, new Date(seconds * 1000), body);

interface Delivery {
  id: string;
  type: string;
  body: string;
  headers: Record<string, string>;
}

/**
 * An event as our sender posts it, signed by the reference package with each
 * secret. The body is not what JSON.stringify writes (spacing, `1.50`,
 * non-ASCII text), so a receiver that verifies re-serialized JSON fails.
 */
function delivery(secrets: string[], options: { ageSeconds?: number; type?: string } = {}): Delivery {
  const id = `evt_${randomBytes(8).toString('hex')}`;
  const type = options.type ?? 'test.delivered';
  const body = `{"type": "${type}",  "id": "${id}", "createdAt": "2026-11-26T10:00:00.000Z", "data": {"note": "café – 1.50 €", "value": 1.50}}`;
  const seconds = Math.floor(Date.now() / 1000) - (options.ageSeconds ?? 0);
  return {
    id,
    type,
    body,
    headers: {
      'webhook-id': id,
      'webhook-timestamp': String(seconds),
      'webhook-signature': secrets.map((secret) => sign(secret, id, seconds, body)).join(' '),
    },
  };
}

interface Receiver {
  url: string;
  /** The JSON lines it printed on stdout so far. */
  printed(): unknown[];
  stderr(): string;
  stop(): Promise<void>;
}

/** Starts a receiver on a port of its choosing on 127.0.0.1; resolves once it says it listens. */
async function startReceiver(
  command: string,
  args: string[],
  cwd: string,
  secret: string,
): Promise<Receiver> {
  const child: ChildProcess = spawn(command, args, {
    cwd,
    env: customerEnv({ PORT: '0', HOST: '127.0.0.1', MDS_WEBHOOK_SECRET: secret }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  track(child, `docs/webhooks.md receiver: ${command} ${args.join(' ')}`);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
  });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  const receiver: Receiver = {
    url: '',
    printed: () =>
      stdout
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line)),
    stderr: () => stderr,
    stop: () => stopChild(child, 'SIGTERM', 5_000),
  };
  try {
    const port = await waitFor(
      () => {
        if (child.exitCode !== null) throw new Error(`the receiver exited ${child.exitCode}\n${stderr}`);
        return /listening on port (\d+)/.exec(stderr)?.[1];
      },
      { timeout: 15_000, what: () => `the receiver saying it listens\n${stderr}` },
    );
    receiver.url = `http://127.0.0.1:${port}/`;
    return receiver;
  } catch (error) {
    await receiver.stop();
    throw error;
  }
}

async function post(url: string, delivered: Pick<Delivery, 'body' | 'headers'>): Promise<number> {
  const answer = await fetch(url, {
    method: 'POST',
    headers: { ...delivered.headers, 'content-type': 'application/json' },
    body: delivered.body,
  });
  await answer.arrayBuffer();
  return answer.status;
}

let dir: string;
let python: string;
let tsProgram: string;

beforeAll(async () => {
  expect(tsBlocks, 'one ts block under "### TypeScript"').toHaveLength(1);
  expect(pyBlocks, 'one python block under "### Python"').toHaveLength(1);
  // The catalogue names every event type the service sends.
  for (const type of EVENT_TYPES) expect(section(DOC, 'Events'), type).toContain(`\`${type}\``);
  dir = mkdtempSync(join(tmpdir(), 'mds-webhooks-doc-'));
  const installed = venvWithClient(dir);

  // A customer's folder after `npm install standardwebhooks`: the repository's copy, linked.
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(join(REPO, 'node_modules', 'standardwebhooks'), join(dir, 'node_modules', 'standardwebhooks'));
  writeFileSync(join(dir, 'receiver.mts'), tsBlocks[0]!);
  // Node 20 does not strip types: compile, as `tsc` would, and type-check as it is.
  tsProgram = join(dir, 'receiver.mjs');
  writeFileSync(
    tsProgram,
    ts.transpileModule(tsBlocks[0]!, {
      fileName: 'receiver.mts',
      compilerOptions: { module: ts.ModuleKind.NodeNext, target: ts.ScriptTarget.ES2022 },
    }).outputText,
  );
  const typeChecked = runOk(...strictTsc(['receiver.mts']), {
    cwd: dir,
    env: customerEnv(),
    timeout: 60_000,
  });
  writeFileSync(join(dir, 'receiver.py'), pyBlocks[0]!);
  [python] = await Promise.all([installed, typeChecked]);
}, 120_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.each([
  {
    language: 'TypeScript',
    start: (secret: string) => startReceiver(process.execPath, [tsProgram], dir, secret),
  },
  { language: 'Python', start: (secret: string) => startReceiver(python, ['receiver.py'], dir, secret) },
])('docs/webhooks.md, the $language receiver', ({ start }) => {
  const secret = newSecret();
  const retired = newSecret();
  let receiver: Receiver;
  const good = delivery([secret]);
  const rotated = delivery([retired, secret], { type: 'test.rotated' });

  beforeAll(async () => {
    receiver = await start(secret);
  }, 30_000);
  afterAll(async () => {
    await receiver?.stop();
  });

  it('answers 204 to a delivery signed by the reference package and prints the event', async () => {
    expect(await post(receiver.url, good)).toBe(204);
    await waitFor(() => receiver.printed().length > 0, {
      what: () => `the event printed\n${receiver.stderr()}`,
    });
    expect(receiver.printed()).toEqual([{ id: good.id, type: good.type }]);
  });

  it('answers 400 to a tampered body, a missing signature, and another secret', async () => {
    expect(await post(receiver.url, { ...good, body: good.body.replace('1.50 €', '9.50 €') })).toBe(400);
    const { 'webhook-signature': _, ...unsigned } = good.headers;
    expect(await post(receiver.url, { ...good, headers: unsigned })).toBe(400);
    expect(await post(receiver.url, delivery([newSecret()]))).toBe(400);
  });

  it('answers 400 to a delivery signed 10 minutes ago', async () => {
    expect(await post(receiver.url, delivery([secret], { ageSeconds: 600 }))).toBe(400);
  });

  it('during a rotation, accepts two signatures of which only the second is its secret; a duplicate webhook-id is answered 204 and not processed again', async () => {
    expect(await post(receiver.url, good)).toBe(204);
    expect(await post(receiver.url, rotated)).toBe(204);
    await waitFor(() => receiver.printed().length > 1, {
      what: () => `the rotated event printed\n${receiver.stderr()}`,
    });
    // In order, one line each: the duplicate and the rejected deliveries printed nothing.
    expect(receiver.printed()).toEqual([
      { id: good.id, type: good.type },
      { id: rotated.id, type: rotated.type },
    ]);
  });
});

describe('mds_client.verify_webhook against the reference package', () => {
  const NOW = 1_800_000_000;
  const secret = newSecret();
  const retired = newSecret();
  const id = 'evt_0123456789abcdef';
  const body =
    '{"type": "test.delivered", "id": "evt_0123456789abcdef", "createdAt": "2026-11-26T10:00:00.000Z", "data": {"note": "é ✓ \\u00e9", "n": 1.50}}';
  const headers = (overrides: Record<string, string> = {}, at = NOW, text = body) => ({
    'webhook-id': id,
    'webhook-timestamp': String(at),
    'webhook-signature': sign(secret, id, at, text),
    ...overrides,
  });
  // A character inside the base64, where every bit counts.
  const flip = (signature: string) =>
    `${signature.slice(0, 10)}${signature[10] === 'A' ? 'B' : 'A'}${signature.slice(11)}`;

  interface Case {
    name: string;
    secret: string;
    body: string;
    headers: Record<string, string>;
    now: number;
    tolerance?: number;
    /** 'ok', a WebhookVerificationError message, or 'secret' (a plain ValueError). */
    expected: 'ok' | RegExp | 'secret';
    /** The reference package has a fixed 5-minute tolerance: no verdict of its own then. */
    referenceToo?: false;
  }
  const cases: Case[] = [
    { name: 'valid', secret, body, headers: headers(), now: NOW, expected: 'ok' },
    {
      name: 'header names in any case',
      secret,
      body,
      headers: Object.fromEntries(Object.entries(headers()).map(([k, v]) => [k.toUpperCase(), v])),
      now: NOW,
      expected: 'ok',
    },
    {
      name: 'rotation, the second signature matches',
      secret,
      body,
      headers: headers({
        'webhook-signature': `${sign(retired, id, NOW, body)} ${sign(secret, id, NOW, body)}`,
      }),
      now: NOW,
      expected: 'ok',
    },
    {
      name: 'rotation, the first signature matches',
      secret,
      body,
      headers: headers({
        'webhook-signature': `${sign(secret, id, NOW, body)} ${sign(retired, id, NOW, body)}`,
      }),
      now: NOW,
      expected: 'ok',
    },
    {
      name: 'an entry without a comma before the match',
      secret,
      body,
      headers: headers({ 'webhook-signature': `v1a ${sign(secret, id, NOW, body)}` }),
      now: NOW,
      expected: 'ok',
    },
    {
      name: 'the secret without whsec_',
      secret: secret.slice('whsec_'.length),
      body,
      headers: headers(),
      now: NOW,
      expected: 'ok',
    },
    { name: '5 minutes old, the limit', secret, body, headers: headers(), now: NOW + 300, expected: 'ok' },
    { name: '5 minutes ahead, the limit', secret, body, headers: headers(), now: NOW - 300, expected: 'ok' },
    {
      name: 'one second older',
      secret,
      body,
      headers: headers(),
      now: NOW + 301,
      expected: /^webhook-timestamp too old: 301 s/,
    },
    {
      name: 'one second further ahead',
      secret,
      body,
      headers: headers(),
      now: NOW - 301,
      expected: /^webhook-timestamp too new: 301 s/,
    },
    {
      name: 'a narrower tolerance',
      secret,
      body,
      headers: headers(),
      now: NOW + 61,
      tolerance: 60,
      expected: /too old/,
      referenceToo: false,
    },
    {
      name: 'a tampered body',
      secret,
      body: body.replace('1.50', '1.5'),
      headers: headers(),
      now: NOW,
      expected: /^no webhook-signature matches/,
    },
    {
      name: 'another secret',
      secret: retired,
      body,
      headers: headers(),
      now: NOW,
      expected: /^no webhook-signature matches/,
    },
    {
      name: 'one base64 character changed',
      secret,
      body,
      headers: headers({ 'webhook-signature': flip(sign(secret, id, NOW, body)) }),
      now: NOW,
      expected: /^no webhook-signature matches/,
    },
    {
      name: 'the right signature under another version',
      secret,
      body,
      headers: headers({ 'webhook-signature': sign(secret, id, NOW, body).replace('v1,', 'v2,') }),
      now: NOW,
      expected: /^no webhook-signature matches/,
    },
    {
      name: 'another webhook-id',
      secret,
      body,
      headers: headers({ 'webhook-id': 'evt_other' }),
      now: NOW,
      expected: /^no webhook-signature matches/,
    },
    {
      name: 'the timestamp header changed after signing',
      secret,
      body,
      headers: headers({ 'webhook-timestamp': String(NOW + 1) }),
      now: NOW,
      expected: /^no webhook-signature matches/,
    },
    {
      name: 'no signature header',
      secret,
      body,
      headers: { 'webhook-id': id, 'webhook-timestamp': String(NOW) },
      now: NOW,
      expected: /^missing header: webhook-signature$/,
    },
    {
      name: 'a timestamp that is not a number',
      secret,
      body,
      headers: headers({ 'webhook-timestamp': 'yesterday' }),
      now: NOW,
      expected: /^webhook-timestamp is not integer seconds/,
    },
    {
      name: 'a signed body that is not JSON',
      secret,
      body: 'not json',
      headers: headers({}, NOW, 'not json'),
      now: NOW,
      expected: /^the body is not JSON$/,
    },
    {
      name: 'a secret that is not base64',
      secret: 'whsec_not base64!',
      body,
      headers: headers(),
      now: NOW,
      expected: 'secret',
    },
  ];

  /** What the reference package says of a case, its clock set to the case's `now`. */
  function referenceVerdict(c: Case): 'ok' | 'error' {
    vi.useFakeTimers({ toFake: ['Date'], now: c.now * 1000 });
    try {
      new Webhook(c.secret).verify(Buffer.from(c.body), c.headers);
      return 'ok';
    } catch {
      return 'error';
    } finally {
      vi.useRealTimers();
    }
  }

  const PY_CHECK = `
import json, sys
from mds_client import WebhookVerificationError, verify_webhook
from mds_client.webhooks import _key, _signature

request = json.load(sys.stdin)
verdicts = []
for case in request["cases"]:
    options = {"now": case["now"]}
    if "tolerance" in case:
        options["tolerance_seconds"] = case["tolerance"]
    try:
        verdicts.append({"ok": verify_webhook(case["secret"], case["body"].encode("utf-8"), case["headers"], **options)})
    except WebhookVerificationError as error:
        verdicts.append({"error": str(error), "valueError": isinstance(error, ValueError)})
    except ValueError as error:
        verdicts.append({"secret": str(error)})
signatures = [
    "v1," + _signature(_key(s["secret"]), s["id"], s["timestamp"], s["body"].encode("utf-8")).decode("ascii")
    for s in request["signatures"]
]
print(json.dumps({"verdicts": verdicts, "signatures": signatures}))
`;

  it('signs the same bytes, and gives the same verdict as the reference package on every case', async () => {
    const signing = [
      { secret, id, timestamp: NOW, body },
      { secret: retired, id: 'evt_x', timestamp: 1, body: '' },
      { secret, id: 'evt_ünïcode', timestamp: NOW, body: 'line 1\nline 2\r\n\t"quoted" \\ € 𝄞' },
      { secret: newSecret(), id, timestamp: NOW, body: JSON.stringify({ data: 'x'.repeat(200_000) }) },
    ];
    const out = await runOk(python, ['-c', PY_CHECK], {
      cwd: dir,
      env: customerEnv(),
      input: JSON.stringify({ cases, signatures: signing }),
      timeout: 30_000,
    });
    const result = JSON.parse(out) as {
      verdicts: Array<{ ok?: unknown; error?: string; valueError?: boolean; secret?: string }>;
      signatures: string[];
    };

    expect(result.signatures).toEqual(signing.map((s) => sign(s.secret, s.id, s.timestamp, s.body)));

    for (const [index, c] of cases.entries()) {
      const verdict = result.verdicts[index]!;
      const label = `case "${c.name}": ${JSON.stringify(verdict)}`;
      if (c.expected === 'ok') {
        expect(verdict.ok, label).toEqual(JSON.parse(c.body));
      } else if (c.expected === 'secret') {
        expect(verdict.secret, label).toMatch(/whsec_/);
      } else {
        expect(verdict.error, label).toMatch(c.expected);
        expect(verdict.valueError, label).toBe(true);
      }
      if (c.referenceToo !== false) {
        expect(referenceVerdict(c), `the reference package on ${label}`).toBe(
          c.expected === 'ok' ? 'ok' : 'error',
        );
      }
    }
  });
});
