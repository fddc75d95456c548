/**
 * A webhook receiver for tests: a real HTTP server on 127.0.0.1 that verifies
 * every delivery's signature with the `standardwebhooks` package against the
 * secrets it is told, records what arrived, and can answer 500, hold a
 * request open, or be down (its port closed, then listening again).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { waitFor } from './wait.js';

export interface Received {
  id: string;
  timestamp: string;
  type: string;
  body: string;
  payload: { type: string; id: string; createdAt: string; data: Record<string, unknown> };
  /** The secrets (of those the receiver knows) whose signature verified. */
  verifiedWith: string[];
  /** How many `v1,` signatures the delivery carried. */
  signatures: number;
  /** What the receiver answered. */
  status: number;
}

export type Mode = 'ok' | 'fail' | 'hang';

export class WebhookReceiver {
  readonly received: Received[] = [];
  /** Secrets to verify with; a delivery none verifies is answered 400. */
  secrets: string[] = [];
  mode: Mode = 'ok';
  private server: Server;
  private held: ServerResponse[] = [];
  port = 0;

  constructor() {
    this.server = this.make();
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`;
  }

  private make(): Server {
    return createServer((req, res) => this.handle(req, res));
  }

  async start(port = 0): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  /** Closes the port: attempts meet a refused connection until `up()`. */
  async down(): Promise<void> {
    for (const res of this.held.splice(0)) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  async up(): Promise<void> {
    this.server = this.make();
    await this.start(this.port);
  }

  async close(): Promise<void> {
    for (const res of this.held.splice(0)) res.destroy();
    if (this.server.listening) await this.down();
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = {
        'webhook-id': String(req.headers['webhook-id'] ?? ''),
        'webhook-timestamp': String(req.headers['webhook-timestamp'] ?? ''),
        'webhook-signature': String(req.headers['webhook-signature'] ?? ''),
      };
      const verifiedWith = this.secrets.filter((secret) => {
        try {
          new Webhook(secret).verify(body, headers);
          return true;
        } catch {
          return false;
        }
      });
      const status = verifiedWith.length === 0 ? 400 : this.mode === 'fail' ? 500 : 204;
      let payload: Received['payload'];
      try {
        payload = JSON.parse(body);
      } catch {
        payload = { type: '', id: '', createdAt: '', data: {} };
      }
      this.received.push({
        id: headers['webhook-id'],
        timestamp: headers['webhook-timestamp'],
        type: payload.type,
        body,
        payload,
        verifiedWith,
        signatures: headers['webhook-signature'].split(' ').filter((s) => s.startsWith('v1,')).length,
        status: this.mode === 'hang' ? 0 : status,
      });
      if (this.mode === 'hang') {
        this.held.push(res);
        return;
      }
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(status === 500 ? 'receiver failed on purpose' : '');
    });
  }

  /** The deliveries accepted (2xx, verified) of a type. */
  accepted(type?: string): Received[] {
    return this.received.filter((r) => r.status === 204 && (type === undefined || r.type === type));
  }

  /** Waits until `n` deliveries of `type` were accepted. */
  async waitForAccepted(type: string, n = 1, timeout = 10_000): Promise<Received[]> {
    return waitFor(() => (this.accepted(type).length >= n ? this.accepted(type) : undefined), {
      timeout,
      what: () =>
        `${n} ${type} accepted (received: ${this.received.map((r) => `${r.type}:${r.status}`).join(', ')})`,
    });
  }
}

export async function startReceiver(secrets: string[] = []): Promise<WebhookReceiver> {
  const r = new WebhookReceiver();
  r.secrets = secrets;
  return r.start();
}
