import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import standardWebhooks from 'standardwebhooks';

/** Settings for a live delivery: a receiver on loopback, quick retries and polls. */
export const FAST_DELIVERY = {
  WEBHOOKS_ALLOW_PRIVATE_ADDRESSES: 'true',
  WEBHOOKS_RETRY_BASE_MS: '10',
  OUTBOX_RETRY_BASE_MS: '10',
  OUTBOX_POLL_INTERVAL_MS: '50',
};

/** One request the receiver got: its raw body, as signed, and its headers. */
export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** What the receiver answered. */
  status: number;
}

export interface Reply {
  status: number;
  /** Answer only after this long. */
  delayMs?: number;
  headers?: Record<string, string>;
  body?: string;
}

/**
 * A webhook receiver on a loopback port: it records every request and answers from a queue of
 * replies per path (then 204, or the path's own answer). `listen(port)` after `stop()` brings it back on the same port, as a
 * receiver that was down comes back.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  private readonly replies = new Map<string, Reply[]>();
  private readonly defaults = new Map<string, number>();
  private server?: Server;

  private constructor(public port: number) {}

  static async start(port = 0): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver(port);
    await receiver.listen();
    return receiver;
  }

  /** `http://127.0.0.1:PORT/hooks/<name>`: one path per subscription tells them apart. */
  url(name = 'pets'): string {
    return `http://127.0.0.1:${this.port}/hooks/${name}`;
  }

  /** Answers the next requests to one subscription's path with these replies, then 204 again. */
  reply(name: string, ...replies: (Reply | number)[]): void {
    const queue = this.replies.get(`/hooks/${name}`) ?? [];
    queue.push(...replies.map((r) => (typeof r === 'number' ? { status: r } : r)));
    this.replies.set(`/hooks/${name}`, queue);
  }

  /** Answers every request to one subscription's path with `status` once its replies run out. */
  answer(name: string, status: number): void {
    this.defaults.set(`/hooks/${name}`, status);
  }

  /** The requests to one subscription's path. */
  to(name = 'pets'): ReceivedWebhook[] {
    return this.received.filter((r) => r.path === `/hooks/${name}`);
  }

  /** The requests it acknowledged (2xx), by path. */
  acknowledged(name = 'pets'): ReceivedWebhook[] {
    return this.to(name).filter((r) => r.status >= 200 && r.status < 300);
  }

  async listen(): Promise<void> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const path = req.url ?? '';
        const reply = this.replies.get(path)?.shift() ?? { status: this.defaults.get(path) ?? 204 };
        this.received.push({
          path,
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          status: reply.status,
        });
        setTimeout(
          () => res.writeHead(reply.status, reply.headers).end(reply.body),
          reply.delayMs ?? 0,
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

/** Verifies a received webhook with the standardwebhooks library and returns its payload. */
export function verified(secret: string, webhook: ReceivedWebhook): unknown {
  const headers = Object.fromEntries(
    ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => [
      name,
      String(webhook.headers[name]),
    ]),
  );
  return new standardWebhooks.Webhook(secret).verify(webhook.body, headers);
}
