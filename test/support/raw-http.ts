/**
 * HTTP/1.1 over a raw socket, for what fetch and http.Agent cannot do:
 * pipelined requests, malformed requests, CONNECT, a header flood. Responses are
 * parsed as they arrive, with their headers exactly as sent.
 */
import net from 'node:net';
import tls from 'node:tls';
import { expect } from 'vitest';

export interface RawResponse {
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
}

/** Parses the responses of one connection from the bytes received so far. */
export class ResponseReader {
  private buffer = Buffer.alloc(0);
  readonly responses: RawResponse[] = [];

  push(chunk: Buffer): RawResponse[] {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    const found: RawResponse[] = [];
    for (;;) {
      const response = this.next();
      if (!response) break;
      found.push(response);
      this.responses.push(response);
    }
    return found;
  }

  private next(): RawResponse | null {
    const end = this.buffer.indexOf('\r\n\r\n');
    if (end === -1) return null;
    const [statusLine = '', ...lines] = this.buffer.subarray(0, end).toString('latin1').split('\r\n');
    const status = Number(statusLine.split(' ')[1]);
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
    }
    let offset = end + 4;
    let body: Buffer;
    if (headers['transfer-encoding']?.toLowerCase() === 'chunked') {
      const chunks: Buffer[] = [];
      for (;;) {
        const lineEnd = this.buffer.indexOf('\r\n', offset);
        if (lineEnd === -1) return null;
        const size = Number.parseInt(this.buffer.subarray(offset, lineEnd).toString('latin1'), 16);
        if (this.buffer.length < lineEnd + 2 + size + 2) return null;
        chunks.push(this.buffer.subarray(lineEnd + 2, lineEnd + 2 + size));
        offset = lineEnd + 2 + size + 2;
        if (size === 0) break;
      }
      body = Buffer.concat(chunks);
    } else {
      const length = Number(headers['content-length'] ?? 0);
      if (this.buffer.length < offset + length) return null;
      body = Buffer.from(this.buffer.subarray(offset, offset + length));
      offset += length;
    }
    this.buffer = this.buffer.subarray(offset);
    return { status, headers, body };
  }
}

export type RawSocket = net.Socket | tls.TLSSocket;

/** A plain or TLS connection (any certificate accepted), resolved once it is open. */
export function connect(port: number, secure = false): Promise<RawSocket> {
  return new Promise((resolve, reject) => {
    const socket = secure
      ? tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => resolve(socket))
      : net.connect({ host: '127.0.0.1', port }, () => resolve(socket));
    socket.once('error', reject);
  });
}

/**
 * Writes `bytes` on a new connection and collects every response until the
 * server closes it (or `timeoutMs` passes).
 */
export async function exchange(
  port: number,
  bytes: string,
  options: { secure?: boolean; timeoutMs?: number } = {},
): Promise<RawResponse[]> {
  const socket = await connect(port, options.secure);
  const reader = new ResponseReader();
  return new Promise((resolve) => {
    const timer = setTimeout(() => socket.destroy(), options.timeoutMs ?? 5_000);
    socket.on('data', (chunk: Buffer) => reader.push(chunk));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(reader.responses);
    });
    socket.write(bytes);
  });
}

/** One answer as `sendLines` gives it: headers by lower-case name, the body as text. */
export interface LineAnswer {
  status: number;
  headers: Map<string, string>;
  body: string;
}

/**
 * `GET path` with exactly these header lines (repeated names kept, in order)
 * over a new connection that closes after the answer: for what fetch and
 * light-my-request would merge, such as a header sent twice.
 */
export async function sendLines(port: number, path: string, headerLines: string[]): Promise<LineAnswer> {
  const request = [`GET ${path} HTTP/1.1`, 'Host: localhost', 'Connection: close', ...headerLines, '', ''];
  const [res] = await exchange(port, request.join('\r\n'));
  if (!res) throw new Error(`GET ${path}: no answer`);
  return {
    status: res.status,
    headers: new Map(Object.entries(res.headers)),
    body: res.body.toString('utf8'),
  };
}

/** What a client that stopped reading saw once it read again. */
export interface StoppedReading {
  /** Milliseconds from reading again to the connection's end; null if it was still open after 5 s. */
  endedAfterMs: number | null;
  /** Complete `200 OK` answers received in all. */
  answered: number;
}

/**
 * Sends `requests` pipelined GETs of `path` and reads nothing for `stallMs`,
 * then reads what arrives until the server ends the connection (5 s at most).
 */
export async function stopReading(
  port: number,
  secure: boolean,
  path: string,
  requests: number,
  stallMs: number,
): Promise<StoppedReading> {
  const socket = await connect(port, secure);
  socket.pause();
  socket.on('error', () => {});
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(performance.now())));
  socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`.repeat(requests));
  await new Promise((r) => setTimeout(r, stallMs));
  let text = '';
  socket.setEncoding('latin1');
  socket.on('data', (d: string) => {
    text += d;
  });
  const resumedAt = performance.now();
  socket.resume();
  const end = await Promise.race([closed, new Promise<null>((r) => setTimeout(() => r(null), 5_000))]);
  socket.destroy();
  return {
    endedAfterMs: end === null ? null : end - resumedAt,
    answered: text.split('HTTP/1.1 200 OK\r\n').length - 1,
  };
}

/**
 * The server cut off a client that stopped reading: the connection ended once
 * it read again, after some answers (what the kernel held) and before all of them.
 */
export function expectCutOffPartWay(r: StoppedReading, requests: number): void {
  expect(r.endedAfterMs, 'the connection was still open after the client had stopped reading').not.toBeNull();
  expect(r.answered).toBeGreaterThan(0);
  expect(r.answered).toBeLessThan(requests);
}
