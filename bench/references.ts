/**
 * The reference servers: starting them with the service's answer, and
 * checking that they send what the service sends, so that a ratio compares
 * like with like (docs/decisions.md 71 and 73).
 */
import { join } from 'node:path';
import { REQUEST_ID_FORM } from '../src/http/request-ids.js';
import { HEAP_GROWING_FLAG, NODE_FLAGS } from '../src/runtime/heap.js';
import type { Check } from './load.js';
import {
  defer,
  freePort,
  type HttpAnswer,
  httpGet,
  type Spawned,
  spawnPinned,
  stop,
  waitFor200,
} from './proc.js';
import { type ReferenceConfig, type ReferenceRoute, splitAtRequestId } from './reference-config.js';
import { benchEnv, NODE_OWN_HEADERS, ROOT, type ServiceAnswer } from './service.js';

/**
 * Starts bench/reference-tick.ts (with `tick`) or bench/reference-http.ts
 * serving `route`, stopped at the end of the run. It runs with the service's
 * own V8 flags and heap growth, so that the two differ in code only; the flags
 * keep V8's memory reducer off: a reference that waited idle for its turn came
 * out of a reducer's collection at about 1.4× its CPU per answer for good.
 */
export async function startReference(
  route: ReferenceRoute,
  cpus: string | undefined,
  extra: Pick<ReferenceConfig, 'sameHeaders' | 'tick'> = {},
): Promise<{ proc: Spawned; origin: string }> {
  const script = join(ROOT, 'dist/bench', `${extra.tick ? 'reference-tick' : 'reference-http'}.js`);
  const config: ReferenceConfig = { host: '127.0.0.1', port: await freePort(), route, ...extra };
  const args = [...NODE_FLAGS, HEAP_GROWING_FLAG, script, JSON.stringify(config)];
  const proc = spawnPinned(cpus, process.execPath, args, benchEnv());
  defer(() => stop(proc));
  const origin = `http://${config.host}:${config.port}`;
  await waitFor200(`${origin}${route.url}`, {}, proc);
  return { proc, origin };
}

/**
 * Why `received` is not the head `wanted` (undefined when it is): the same
 * names, spelled and ordered alike, with the same values, but Date's, which
 * only needs its length (an IMF-fixdate is always 29 characters).
 */
export function sameHead(received: string[], wanted: string[]): string | undefined {
  const names = (l: string[]) => l.filter((_, i) => i % 2 === 0).join(', ');
  if (names(received) !== names(wanted)) return `headers ${names(received)}; the service's ${names(wanted)}`;
  for (let i = 0; i + 1 < wanted.length; i += 2) {
    const [name, got, want] = [wanted[i]!, received[i + 1]!, wanted[i + 1]!];
    if (name.toLowerCase() === 'date' ? got.length !== want.length : got !== want)
      return `${name}: ${JSON.stringify(got)}, the service's ${JSON.stringify(want)}`;
  }
  return undefined;
}

/**
 * Why `got` is not the service's answer carrying its own request id
 * (undefined when it is): an X-Request-Id in the service's form, other than
 * `before`'s, in the body's meta.requestId at the service's place, every
 * other byte and header the service's (Content-Length by the id's length).
 */
export function freshIdProblem(
  r: ReferenceRoute,
  received: string[],
  got: HttpAnswer,
  before?: HttpAnswer,
): string | undefined {
  if (got.status !== 200) return `status ${got.status}`;
  const { head, tail } = splitAtRequestId(r);
  const id = String(got.headers['x-request-id'] ?? '');
  if (!REQUEST_ID_FORM.test(id)) return `X-Request-Id ${JSON.stringify(id)} is not in the service's form`;
  if (before?.headers['x-request-id'] === id) return `two answers carried the same request id ${id}`;
  if (!got.body.equals(Buffer.concat([head, Buffer.from(id, 'latin1'), tail])))
    return `the body is not the service's with meta.requestId ${id}`;
  const length = String(head.length + id.length + tail.length);
  const wanted = received.map((v, i) => {
    const name = received[i - 1]?.toLowerCase();
    return i % 2 === 0 ? v : name === 'x-request-id' ? id : name === 'content-length' ? length : v;
  });
  return sameHead(got.rawHeaders, wanted);
}

/**
 * That bare node:http sends the service's bytes with its Content-Type and
 * Node's own headers, and the same-headers server (when given) every header
 * the service sent, in order, with a fresh request id in each of two answers.
 */
export async function checkReferences(a: ServiceAnswer, bare: string, same?: string): Promise<Check[]> {
  const { route: r } = a;
  const got = await httpGet(`${bare}${r.url}`);
  const head = a.rawHeaders.filter(
    (_, i, l) => /^content-type$/i.test(l[i - (i % 2)]!) || NODE_OWN_HEADERS.test(l[i - (i % 2)]!),
  );
  const bareProblem = got.body.equals(a.body) ? sameHead(got.rawHeaders, head) : 'the body differs';
  const checks = [
    {
      name: `node:http serves the service's exact bytes of ${r.url}, its Content-Type and Node's own headers`,
      ok: !bareProblem,
      detail: bareProblem ?? `${a.body.length} bytes`,
    },
  ];
  if (same) {
    const first = await httpGet(`${same}${r.url}`);
    const problem =
      freshIdProblem(r, a.rawHeaders, first) ??
      freshIdProblem(r, a.rawHeaders, await httpGet(`${same}${r.url}`), first);
    checks.push({
      name: `node:http, same headers, serves the service's bytes and every header of ${r.url}, a fresh request id in each answer`,
      ok: !problem,
      detail: problem ?? `${a.rawHeaders.length / 2} headers`,
    });
  }
  return checks;
}
