/**
 * A client that stops reading its answers is cut off (docs/decisions.md 75).
 *
 * Node's own timeouts cover a client that is slow to send (the header and
 * request timeouts) or idle between requests (the keep-alive timeout), but not
 * one that sends requests and then never reads: once the kernel's buffers are
 * full, the answer waits in the process and the connection stays open for
 * good. A socket inactivity timeout (`server.setTimeout`) would cover it, at a
 * price on every request: Node re-arms that timer on each read and write of
 * every socket (about 2 % of `/v1/rates/latest` under load, measured in
 * docs/performance-notes.md). Instead, once every interval, each connection
 * with bytes still waiting to go out is checked for progress; one that made
 * none for `timeoutMs` is destroyed. Nothing is done per request.
 */
import type { Server, Socket } from 'node:net';

interface Waiting {
  /** What the socket had written and still held when first seen stuck. */
  written: number;
  held: number;
  since: number;
}

/**
 * Watches the connections of `server` (its `secureConnection`s when serving
 * TLS: the socket the answers are written to) until it closes.
 */
export function cutStalledReaders(
  server: Server,
  timeoutMs: number,
  tls: boolean,
  intervalMs = Math.min(1_000, timeoutMs),
): void {
  // Every open connection, with what it held when first seen stuck (null: not stuck).
  const watched = new Map<Socket, Waiting | null>();
  server.on(tls ? 'secureConnection' : 'connection', (socket: Socket) => {
    watched.set(socket, null);
    socket.once('close', () => watched.delete(socket));
  });
  const sweep = setInterval(() => {
    const now = performance.now();
    for (const [socket, seen] of watched) {
      const held = socket.writableLength;
      if (held === 0) {
        if (seen !== null) watched.set(socket, null);
        continue;
      }
      // Progress is any change: bytes taken by the client, or new ones queued.
      const written = socket.bytesWritten;
      if (seen === null || seen.written !== written || seen.held !== held) {
        watched.set(socket, { written, held, since: now });
      } else if (now - seen.since >= timeoutMs) {
        socket.destroy();
      }
    }
  }, intervalMs);
  sweep.unref();
  server.once('close', () => clearInterval(sweep));
}
