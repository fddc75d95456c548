/**
 * `npm run bench:pipeline`: what the /v1 pipeline itself costs per answer of
 * `/v1/rates/latest`, without Node's HTTP (docs/performance-notes.md, "the
 * pipeline on its own").
 *
 * The embedded target compares the service with node:http sending the same
 * bytes and headers. Under wrk on this machine that figure moves by ±20 %
 * from run to run, more than the pipeline's own share, so a change to the
 * pipeline cannot be judged from it. Here `mds serve`'s own server is started
 * in a process pinned to the server's core, with the service's V8 flags, and
 * its request listener is called with stand-ins for Node's request and
 * response: the /v1 entrance, the decision, the limiter, the usage commit of
 * each tick and the writer all run as they do under load, Node's parser and
 * sockets do not. Each tick takes as many requests as wrk has connections
 * (50), then waits until all are answered; CPU time (`process.cpuUsage`) over
 * the answers, per round. The bench's other operations are served a few times
 * first, as a server in use has served them. Before the rounds, the stand-ins' answer is checked
 * against a real one over HTTP: same status, header names and body length.
 *
 * Figures from this script are lab measurements for the notes, not targets:
 * the bench report (`npm run bench`) holds the targets.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { HEAP_GROWING_FLAG, holdTickShape, NODE_FLAGS } from '../src/runtime/heap.js';
import { generateSample } from '../src/sample/generate.js';
import { startServer } from '../src/server.js';
import { median } from './load.js';
import { cpuPlan, spawnPinned } from './proc.js';
import { benchEndDate, firstHistoryPage, nextCursorOf, scenarios } from './scenarios.js';
import { answer, NODE_OWN_HEADERS } from './service.js';
import { prepareSqlite } from './setup.js';

const URL_PATH = '/v1/rates/latest';
interface Settings {
  rounds: number;
  seconds: number;
  /** Requests per tick: wrk's connections. */
  batch: number;
}

export interface PipelineRound {
  answers: number;
  /** CPU time per answer, µs (user + system). */
  cpuUs: number;
  userUs: number;
}

/** Stand-in for Node's response: records what the writer sends. */
class Answered {
  headersSent = false;
  status = 0;
  headers: string[] = [];
  bytes = 0;
  constructor(private readonly done: (a: Answered) => void) {}
  writeHead(status: number, headers: string[]): this {
    this.headersSent = true;
    this.status = status;
    this.headers = headers;
    return this;
  }
  cork(): void {}
  uncork(): void {}
  write(chunk: string | Buffer): boolean {
    this.bytes += Buffer.byteLength(chunk);
    return true;
  }
  end(chunk?: string | Buffer): void {
    if (chunk !== undefined) this.bytes += Buffer.byteLength(chunk);
    this.done(this);
  }
  destroy(): void {
    this.done(this);
  }
}

type Listener = (req: unknown, res: unknown) => void;

async function child(store: string, key: string, s: Settings): Promise<void> {
  holdTickShape(); // as `mds serve` does (src/runtime/heap.ts)
  const server = await startServer({ host: '127.0.0.1', port: 0, databaseUrl: store, logLevel: 'warn' });
  try {
    const listener = server.app.server.listeners('request')[0] as Listener;
    const headers = { host: '127.0.0.1', authorization: `Bearer ${key}` };
    const rawHeaders = ['Host', headers.host, 'Authorization', headers.authorization];
    const socket = { remoteAddress: '127.0.0.1', writable: true };
    const request = (url = URL_PATH) => ({
      url,
      method: 'GET',
      httpVersion: '1.1',
      headers,
      rawHeaders,
      socket,
    });

    // The stand-ins must get the answer a real request gets (Node's own headers aside).
    const real = await answer(server.url, URL_PATH, key);
    const first = await new Promise<Answered>((resolve) => listener(request(), new Answered(resolve)));
    const names = (flat: string[]) =>
      flat.filter((_, i) => i % 2 === 0 && !NODE_OWN_HEADERS.has(flat[i]!.toLowerCase())).join();
    if (first.status !== 200 || first.bytes !== real.body.length)
      throw new Error(
        `the stand-ins got ${first.status} with ${first.bytes} bytes, a real request 200 with ${real.body.length}`,
      );
    if (names(first.headers) !== names(real.headers))
      throw new Error(`header names differ: ${names(first.headers)} against ${names(real.headers)}`);

    // The bench's other scenarios, a few times each through the same listener, as a server in
    // use has served them (and as the bench's checks do before its load): a process that has run
    // one operation only runs code specialised to it, about 1 µs an answer cheaper under wrk
    // (docs/performance-notes.md).
    const endDate = benchEndDate();
    const cursor = nextCursorOf((await answer(server.url, firstHistoryPage(endDate), key)).body);
    for (const { url } of scenarios(endDate, cursor)) {
      if (url === URL_PATH) continue;
      for (let i = 0; i < 3; i++) {
        const other = await new Promise<Answered>((resolve) => listener(request(url), new Answered(resolve)));
        if (other.status !== 200) throw new Error(`${url} answered ${other.status}, not 200`);
      }
    }

    let answered = 0;
    let failed = 0;
    let tickDone: (() => void) | null = null;
    let waitingFor = 0;
    const done = (a: Answered) => {
      if (a.status !== 200) failed++;
      if (++answered === waitingFor) tickDone?.();
    };
    const tick = () =>
      new Promise<void>((resolve) => {
        waitingFor = answered + s.batch;
        tickDone = resolve;
        for (let i = 0; i < s.batch; i++) listener(request(), new Answered(done));
      });
    const round = async (seconds: number): Promise<PipelineRound> => {
      const from = answered;
      const until = performance.now() + seconds * 1000;
      const cpu = process.cpuUsage();
      while (performance.now() < until) await tick();
      const used = process.cpuUsage(cpu);
      const n = answered - from;
      return { answers: n, cpuUs: (used.user + used.system) / n, userUs: used.user / n };
    };
    await round(2); // warm-up: the optimizing compiler's first passes
    const rounds: PipelineRound[] = [];
    for (let r = 0; r < s.rounds; r++) rounds.push(await round(s.seconds));
    if (failed > 0) throw new Error(`${failed} answer(s) were not 200`);
    process.stdout.write(`PIPELINE_JSON ${JSON.stringify(rounds)}\n`);
  } finally {
    await server.stop();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      rounds: { type: 'string', default: '5' },
      seconds: { type: 'string', default: '3' },
      batch: { type: 'string', default: '50' },
      child: { type: 'string' },
      key: { type: 'string' },
    },
  });
  const s: Settings = {
    rounds: Number(values.rounds),
    seconds: Number(values.seconds),
    batch: Number(values.batch),
  };
  for (const [name, v] of Object.entries(s))
    if (!(Number.isInteger(v) && v > 0)) throw new Error(`--${name} ${v}: give a whole number above 0`);
  if (values.child !== undefined) return child(values.child, values.key ?? '', s);

  const dir = mkdtempSync(join(tmpdir(), 'mds-pipeline-'));
  try {
    const store = await prepareSqlite(dir, generateSample({ endDate: benchEndDate() }));
    const cpus = cpuPlan(availableParallelism(), 1).server;
    const args = [
      ...NODE_FLAGS,
      HEAP_GROWING_FLAG,
      fileURLToPath(import.meta.url),
      '--child',
      store.url,
      '--key',
      store.key,
      ...['rounds', 'seconds', 'batch'].flatMap((k) => [`--${k}`, String(s[k as keyof Settings])]),
    ];
    const proc = spawnPinned(cpus, process.execPath, args, { ...process.env, MDS_LOG_LEVEL: 'warn' });
    const code = await new Promise<number | null>((resolve) => proc.child.once('close', resolve));
    const line = proc.output().match(/PIPELINE_JSON (.*)/)?.[1];
    if (code !== 0 || line === undefined) throw new Error(`the measuring process failed:\n${proc.output()}`);
    const rounds = JSON.parse(line) as PipelineRound[];
    for (const r of rounds)
      console.log(
        `${r.answers} answers: ${r.cpuUs.toFixed(2)} µs of CPU per answer (user ${r.userUs.toFixed(2)})`,
      );
    console.log(
      `/v1/rates/latest, the pipeline without Node's HTTP, ${s.batch} requests a tick${cpus ? `, CPU ${cpus}` : ''}: ` +
        `median ${median(rounds.map((r) => r.cpuUs)).toFixed(2)} µs of CPU per answer over ${rounds.length} rounds of ${s.seconds} s`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
