/**
 * One delivery attempt: a POST of the signed message to the subscription's
 * URL, connected to the address resolveTarget checked (the request's `lookup`
 * answers that address and nothing else, so the host's name is not resolved
 * a second time), while the Host header, TLS SNI and the certificate check
 * still use the URL's host.
 *
 * A receiver must not be able to hold a delivery worker: one deadline covers
 * connecting, the answer's headers and its body; only the first bytes of the
 * body are read (kept for the delivery log) before the connection is closed;
 * each attempt has its own connection (`agent: false`). Redirects are not
 * followed, since their target was never checked: a 3xx is a failure. A 2xx
 * status is a success, even when its body is cut off by the deadline. The
 * outcome is a result; attempt never throws.
 */
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';

export interface AttemptInput {
  url: URL;
  /** The address resolveTarget returned for the URL's host. */
  address: string;
  family: 4 | 6;
  /** The signature headers, and any other the caller adds. */
  headers: Record<string, string>;
  body: string;
  /** The deadline for the whole exchange; 10 seconds by default. */
  timeoutMs?: number;
}

export interface AttemptResult {
  /** The receiver answered 2xx. */
  ok: boolean;
  /** The answer's status, or null when none arrived. */
  status: number | null;
  durationMs: number;
  /** At most 256 characters of the answer's body, invalid UTF-8 replaced. */
  responsePrefix: string;
  /** What went wrong below HTTP (timeout, refused connection, TLS, redirect), or null. */
  error: string | null;
}

export const DEFAULT_ATTEMPT_TIMEOUT_MS = 10_000;
const PREFIX_CHARS = 256;
/** Enough bytes for 256 characters of four bytes each. */
const PREFIX_BYTES = PREFIX_CHARS * 4;
const USER_AGENT = 'mds-webhooks/1';

/** A sentence for a transport error: the common ones in words, the rest by their code and message. */
function describeError(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  switch (e.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
      return 'connection reset by the receiver';
    case 'EHOSTUNREACH':
      return 'host unreachable';
    case 'ENETUNREACH':
      return 'network unreachable';
    case 'EPIPE':
      return 'connection closed by the receiver while sending';
  }
  const message = (e.message ?? String(err)).replace(/\s+/g, ' ').trim();
  const code = e.code ?? '';
  if (code.startsWith('HPE_')) return `invalid HTTP answer: ${message}`;
  if (/CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS/.test(code)) return `TLS certificate refused: ${message}`;
  // OpenSSL's reason, e.g. "wrong version number" from a plain HTTP port, is the field before its source file.
  if (code === 'EPROTO' || code.startsWith('ERR_SSL')) {
    const reason = (e as { reason?: string }).reason ?? /:([^:]+):[^:]+\.c:\d+:?$/.exec(message)?.[1];
    return `TLS handshake failed: ${reason ?? message}`;
  }
  return code === '' ? message : `${code}: ${message}`;
}

/** The first 256 characters of what was read, decoded leniently. */
function prefixOf(chunks: Buffer[]): string {
  const text = new TextDecoder('utf-8', { fatal: false }).decode(Buffer.concat(chunks));
  return Array.from(text).slice(0, PREFIX_CHARS).join('');
}

/** POSTs the message once; see the header comment for the rules. */
export function attempt(input: AttemptInput): Promise<AttemptResult> {
  const timeoutMs = input.timeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS;
  const started = performance.now();
  return new Promise<AttemptResult>((resolve) => {
    let status: number | null = null;
    let redirect: string | null = null;
    const chunks: Buffer[] = [];
    let bytes = 0;
    let settled = false;
    let req: http.ClientRequest | undefined;

    const finish = (error: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      // Whatever is left of the answer is discarded with the connection.
      req?.destroy();
      const ok = status !== null && status >= 200 && status < 300;
      resolve({
        ok,
        status,
        durationMs: Math.round(performance.now() - started),
        responsePrefix: prefixOf(chunks),
        error: redirect ?? error,
      });
    };
    const timer = setTimeout(() => {
      const during = status === null ? '' : ' while reading the answer';
      finish(`timeout after ${timeoutMs} ms${during}`);
    }, timeoutMs);

    // The pinned address for any name; Node asks for a list when it races address families.
    const lookup: LookupFunction = (_hostname, options, callback) => {
      if (options.all) callback(null, [{ address: input.address, family: input.family }]);
      else callback(null, input.address, input.family);
    };
    const host = input.url.hostname.startsWith('[') ? input.url.hostname.slice(1, -1) : input.url.hostname;
    try {
      const client = input.url.protocol === 'https:' ? https : http;
      req = client.request({
        method: 'POST',
        protocol: input.url.protocol,
        host,
        port: input.url.port === '' ? undefined : Number(input.url.port),
        path: `${input.url.pathname}${input.url.search}`,
        headers: {
          'content-type': 'application/json',
          'user-agent': USER_AGENT,
          ...input.headers,
          'content-length': String(Buffer.byteLength(input.body)),
        },
        lookup,
        agent: false,
      });
      req.on('error', (err) => finish(describeError(err)));
      req.on('response', (res) => {
        status = res.statusCode ?? null;
        if (status !== null && status >= 300 && status < 400) {
          const location = res.headers.location;
          const to = location === undefined ? 'no Location' : `to ${location.slice(0, 200)}`;
          redirect = `redirect not followed (${status} ${to})`;
        }
        res.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          bytes += chunk.length;
          if (bytes >= PREFIX_BYTES) finish(null);
        });
        res.on('end', () => finish(null));
        res.on('error', (err) => finish(describeError(err)));
        // A connection closed before the body's end, without an error event.
        res.on('close', () => finish(res.complete ? null : 'connection closed while reading the answer'));
      });
      req.end(input.body);
    } catch (err) {
      // Invalid header values and the like are refused synchronously by node:http.
      finish(describeError(err));
    }
  });
}
