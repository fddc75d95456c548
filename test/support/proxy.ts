/**
 * A TCP proxy a test can cut and restore, to take a dependency (PostgreSQL)
 * away from the service without touching the shared server; optionally a
 * slow link, each direction delayed on its own, to widen race windows that
 * a local server keeps too narrow to hit; or replies lost while requests
 * still arrive (a COMMIT applied whose answer never comes back).
 */
import net from 'node:net';

export type Direction = 'up' | 'down';

export interface ProxyOptions {
  /**
   * Milliseconds every chunk waits before it is passed on, per direction: `up`
   * towards the target, `down` back to the client. Byte order is kept.
   * Setting it (even to 0) makes the delay adjustable with `setDelay`.
   */
  delayMs?: { up?: number; down?: number };
  /** Sees every chunk as it reaches the proxy, before any delay. */
  onData?: (direction: Direction, chunk: Buffer) => void;
}

export interface TcpProxy {
  port: number;
  /** Drops every connection and refuses new ones. */
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
  /** Changes the delays for chunks arriving from now on (needs `delayMs` at start). */
  setDelay(delayMs: { up?: number; down?: number }): void;
  /**
   * Resolves when a chunk travelling in `direction` matches, as it reaches the
   * proxy (so with a delay it has not been passed on yet). Needs `delayMs` or
   * `onData` at start.
   */
  waitFor(direction: Direction, match: (chunk: Buffer) => boolean): Promise<Buffer>;
  /**
   * From the moment a chunk travelling `up` matches (that chunk still goes
   * through), nothing travels `down` any more, on every connection, new ones
   * included: the target gets the request and acts on it, the client never
   * hears back. Switched synchronously as the chunk arrives, so the reply to
   * that very chunk is dropped. Resolves then. Needs `delayMs` or `onData`.
   */
  dropRepliesAfter(match: (chunk: Buffer) => boolean): Promise<void>;
  /** Replies flow again; the connections that lost some are cut (their streams are broken). */
  heal(): void;
}

/**
 * Passes chunks from `from` to `to` after `delay()` milliseconds, in order:
 * each chunk is due no earlier than the one before it, so lowering the delay
 * mid-stream cannot overtake bytes already queued.
 */
function forwardDelayed(
  from: net.Socket,
  to: net.Socket,
  delay: () => number,
  tap: (chunk: Buffer) => void,
  dropped: () => boolean = () => false,
) {
  const queue: Array<{ due: number; chunk: Buffer | null }> = []; // null: end of stream
  let timer: NodeJS.Timeout | null = null;
  const deliver = (chunk: Buffer | null) => (chunk === null ? to.end() : to.write(chunk));
  const pump = () => {
    timer = null;
    while (queue.length > 0 && queue[0]!.due <= Date.now()) deliver(queue.shift()!.chunk);
    if (queue.length > 0) timer = setTimeout(pump, queue[0]!.due - Date.now());
  };
  const push = (chunk: Buffer | null) => {
    const ms = delay();
    if (ms <= 0 && queue.length === 0) return void deliver(chunk);
    const due = Math.max(Date.now() + ms, queue.at(-1)?.due ?? 0);
    queue.push({ due, chunk });
    timer ??= setTimeout(pump, due - Date.now());
  };
  from.on('data', (chunk: Buffer) => {
    tap(chunk);
    if (!dropped()) push(chunk);
  });
  from.on('end', () => push(null));
  to.on('close', () => {
    if (timer) clearTimeout(timer);
    queue.length = 0;
  });
}

export async function startProxy(
  targetHost: string,
  targetPort: number,
  options: ProxyOptions = {},
): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let server: net.Server | null = null;
  let port = 0;
  const delay = { up: options.delayMs?.up ?? 0, down: options.delayMs?.down ?? 0 };
  // Plain pipes (with their backpressure) unless the test asked to slow or watch the link.
  const observed = options.delayMs !== undefined || options.onData !== undefined;
  const waiters = new Set<{
    direction: Direction;
    match: (chunk: Buffer) => boolean;
    resolve: (c: Buffer) => void;
  }>();
  let dropping = false;
  let dropTrigger: { match: (chunk: Buffer) => boolean; resolve: () => void } | null = null;
  const tap = (direction: Direction) => (chunk: Buffer) => {
    options.onData?.(direction, chunk);
    if (direction === 'up' && dropTrigger?.match(chunk)) {
      dropping = true;
      dropTrigger.resolve();
      dropTrigger = null;
    }
    for (const w of waiters) {
      if (w.direction === direction && w.match(chunk)) {
        waiters.delete(w);
        w.resolve(chunk);
      }
    }
  };
  const listen = () =>
    new Promise<void>((resolve) => {
      server = net.createServer((client) => {
        const upstream = net.connect(targetPort, targetHost);
        sockets.add(client);
        sockets.add(upstream);
        if (!observed) {
          client.pipe(upstream).pipe(client);
        } else {
          forwardDelayed(client, upstream, () => delay.up, tap('up'));
          forwardDelayed(
            upstream,
            client,
            () => delay.down,
            tap('down'),
            () => dropping,
          );
        }
        const drop = () => {
          client.destroy();
          upstream.destroy();
          sockets.delete(client);
          sockets.delete(upstream);
        };
        client.on('error', drop).on('close', drop);
        upstream.on('error', drop).on('close', drop);
      });
      server.listen(port, '127.0.0.1', () => {
        port = (server!.address() as net.AddressInfo).port;
        resolve();
      });
    });
  await listen();
  const cut = async () => {
    for (const s of sockets) s.destroy();
    sockets.clear();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = null;
  };
  return {
    get port() {
      return port;
    },
    cut,
    restore: listen,
    close: cut,
    setDelay(ms) {
      if (options.delayMs === undefined) throw new Error('start the proxy with delayMs to change it');
      delay.up = ms.up ?? 0;
      delay.down = ms.down ?? 0;
    },
    waitFor(direction, match) {
      if (!observed) throw new Error('start the proxy with delayMs or onData to watch it');
      return new Promise((resolve) => waiters.add({ direction, match, resolve }));
    },
    dropRepliesAfter(match) {
      if (!observed) throw new Error('start the proxy with delayMs or onData to drop replies');
      return new Promise((resolve) => {
        dropTrigger = { match, resolve };
      });
    },
    heal() {
      dropping = false;
      dropTrigger = null;
      for (const s of sockets) s.destroy();
      sockets.clear();
    },
  };
}
