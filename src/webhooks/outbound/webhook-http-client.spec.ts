import { once } from 'node:events';
import {
  createServer,
  type IncomingHttpHeaders,
  type Server,
  type ServerResponse,
} from 'node:http';
import { lookup as dnsLookup } from 'node:dns';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { webhooksConfig, type WebhooksConfig } from '../../config/webhooks.config.js';
import {
  startBlackHoleServer,
  startUnacceptingServer,
} from '../../../test/support/black-hole-server.js';
import { freePort } from '../../../test/support/free-port.js';
import { BoundedLookup, type LookupAll } from './bounded-lookup.js';
import { WebhookHttpClient } from './webhook-http-client.js';

interface Received {
  url: string;
  method: string;
  headers: IncomingHttpHeaders;
  rawHeaders: string[];
  body: string;
}

/** A real HTTP receiver on loopback; each test sets how it answers. */
class Receiver {
  readonly requests: Received[] = [];
  connections = 0;
  answer: (received: Received, response: ServerResponse) => void = (_, response) => response.end();
  private readonly server: Server;
  private base = '';

  constructor() {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const received = {
          url: request.url ?? '',
          method: request.method ?? '',
          headers: request.headers,
          rawHeaders: request.rawHeaders,
          body: Buffer.concat(chunks).toString(),
        };
        this.requests.push(received);
        this.answer(received, response);
      });
    });
    this.server.on('connection', () => (this.connections += 1));
  }

  async start(): Promise<void> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  url(path: string): string {
    return `${this.base}${path}`;
  }

  reset(): void {
    this.requests.length = 0;
    this.connections = 0;
    this.answer = (_, response) => response.end();
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

const configWith = (overrides: Partial<WebhooksConfig> = {}): WebhooksConfig => ({
  ...webhooksConfig(),
  allowPrivateAddresses: true,
  ...overrides,
});

describe(WebhookHttpClient.name, () => {
  const receiver = new Receiver();
  const clients: WebhookHttpClient[] = [];
  const clientWith = (overrides: Partial<WebhooksConfig> = {}, lookup?: BoundedLookup) => {
    const client = new WebhookHttpClient(configWith(overrides), lookup);
    clients.push(client);
    return client;
  };

  beforeAll(() => receiver.start());
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
    receiver.reset();
  });
  afterAll(() => receiver.stop());

  it('should POST the body and report a 2xx as success, with its status, body and duration', async () => {
    receiver.answer = (_, response) => {
      setTimeout(() => response.writeHead(201).end('thanks'), 150);
    };
    const result = await clientWith().post(receiver.url('/hook?x=1'), '{"type":"pet.created"}', {});
    expect(result).toEqual({
      statusCode: 201,
      durationMs: expect.any(Number),
      responseBody: 'thanks',
    });
    expect(result.durationMs).toBeGreaterThanOrEqual(140);
    expect(receiver.requests).toMatchObject([
      { method: 'POST', url: '/hook?x=1', body: '{"type":"pet.created"}' },
    ]);
  });

  it('should send the given headers as given, plus our User-Agent and JSON Content-Type', async () => {
    await clientWith().post(receiver.url('/'), '{}', {
      'webhook-id': 'evt_1',
      'webhook-timestamp': '1700000000',
      'webhook-signature': 'v1,abc= v1,def=',
    });
    expect(receiver.requests[0].headers).toMatchObject({
      'webhook-id': 'evt_1',
      'webhook-timestamp': '1700000000',
      'webhook-signature': 'v1,abc= v1,def=',
      'user-agent': 'petstore-webhooks/1',
      'content-type': 'application/json',
    });
    expect(receiver.requests[0].headers.cookie).toBeUndefined();
  });

  it('should let the caller replace a default header, whatever its case', async () => {
    await clientWith().post(receiver.url('/'), '{}', {
      'Content-Type': 'application/webhook+json',
    });
    const contentTypes = receiver.requests[0].rawHeaders.filter(
      (_, index, raw) => index % 2 === 0 && raw[index].toLowerCase() === 'content-type',
    );
    expect(contentTypes).toHaveLength(1);
    expect(receiver.requests[0].headers['content-type']).toBe('application/webhook+json');
  });

  it('should report a 500 as a failure and keep only the first 1024 bytes, dropping the rest', async () => {
    let responseClosed: Promise<unknown> = Promise.resolve();
    receiver.answer = (_, response) => {
      responseClosed = once(response, 'close');
      response.writeHead(500, { 'content-type': 'text/plain' });
      // 100 kB and no end: only a client that stops reading returns before its timeout.
      response.write('E'.repeat(100 * 1024));
    };
    const started = Date.now();
    const result = await clientWith({ totalTimeoutMs: 5_000 }).post(receiver.url('/'), '{}', {});
    // Sooner than the total timeout: the client stopped reading at its limit.
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(result).toEqual({
      statusCode: 500,
      durationMs: expect.any(Number),
      error: 'answered with status 500',
      responseBody: 'E'.repeat(1024),
    });
    await responseClosed;
  });

  it('should not follow a redirect, and count it as a failure', async () => {
    receiver.answer = (received, response) =>
      received.url === '/from'
        ? response.writeHead(302, { location: receiver.url('/to') }).end()
        : response.end('reached');
    const result = await clientWith().post(receiver.url('/from'), '{}', {});
    expect(result).toEqual({
      statusCode: 302,
      durationMs: expect.any(Number),
      error: 'redirect not followed (302)',
    });
    expect(receiver.requests.map((received) => received.url)).toEqual(['/from']);
  });

  it('should report a closed port as connection refused', async () => {
    const port = await freePort();
    const result = await clientWith().post(`http://127.0.0.1:${port}/`, '{}', {});
    expect(result).toEqual({ durationMs: expect.any(Number), error: 'connection refused' });
  });

  it('should report a server that hangs up without answering', async () => {
    receiver.answer = (_, response) => response.socket?.destroy();
    const result = await clientWith().post(receiver.url('/'), '{}', {});
    expect(result).toEqual({
      durationMs: expect.any(Number),
      error: 'connection closed by the server',
    });
  });

  it('should give up on a server that accepts and never answers after the total timeout', async () => {
    const silent = await startBlackHoleServer();
    try {
      const result = await clientWith({ totalTimeoutMs: 1_000 }).post(silent.endpoint, '{}', {});
      expect(result).toEqual({ durationMs: expect.any(Number), error: 'timed out after 1 s' });
      expect(result.durationMs).toBeGreaterThanOrEqual(950);
    } finally {
      await silent.stop();
    }
  });

  it('should count reading the body in the total timeout', async () => {
    receiver.answer = (_, response) => {
      response.writeHead(200);
      response.write('partial');
    };
    const result = await clientWith({ totalTimeoutMs: 1_000 }).post(receiver.url('/'), '{}', {});
    expect(result).toEqual({
      statusCode: 200,
      durationMs: expect.any(Number),
      error: 'timed out after 1 s',
    });
    expect(result.durationMs).toBeGreaterThanOrEqual(950);
  });

  it('should give up on a connection that is never established after the connect timeout', async () => {
    const unaccepting = await startUnacceptingServer();
    try {
      const client = clientWith({ connectTimeoutMs: 500, totalTimeoutMs: 5_000 });
      const result = await client.post(unaccepting.endpoint, '{}', {});
      expect(result).toEqual({
        durationMs: expect.any(Number),
        error: 'connect timed out after 0.5 s',
      });
    } finally {
      await unaccepting.stop();
    }
  });

  describe('with private addresses refused', () => {
    it('should refuse a loopback IP literal once connected, before sending the request', async () => {
      const result = await clientWith({ allowPrivateAddresses: false }).post(
        receiver.url('/'),
        '{}',
        {},
      );
      expect(result).toEqual({
        durationMs: expect.any(Number),
        error: 'address refused: the connected address is a loopback address',
      });
      expect(receiver.requests).toEqual([]);
    });

    it('should refuse a host name resolving to loopback without connecting, naming the rule only', async () => {
      const url = receiver.url('/').replace('127.0.0.1', 'localhost');
      const result = await clientWith({ allowPrivateAddresses: false }).post(url, '{}', {});
      expect(result).toEqual({
        durationMs: expect.any(Number),
        error: 'address refused: localhost resolves to a loopback address',
      });
      expect(receiver.connections).toBe(0);
    });

    it('should refuse a host name resolving to IPv4-compatible loopback (::7f00:1)', async () => {
      const compat: LookupAll = (_hostname, _options, callback) =>
        callback(null, [{ address: '::7f00:1', family: 6 }]);
      const client = clientWith({ allowPrivateAddresses: false }, new BoundedLookup(2, compat));
      const result = await client.post('http://compat.test/hook', '{}', {});
      expect(result).toEqual({
        durationMs: expect.any(Number),
        error: 'address refused: compat.test resolves to a loopback address',
      });
    });
  });

  it('should refuse a host name resolving to Azure’s wire server even where private addresses are allowed', async () => {
    const wire: LookupAll = (_hostname, _options, callback) =>
      callback(null, [{ address: '168.63.129.16', family: 4 }]);
    const client = clientWith({ allowPrivateAddresses: true }, new BoundedLookup(2, wire));
    const result = await client.post('http://wire.test/machine', '{}', {});
    expect(result).toEqual({
      durationMs: expect.any(Number),
      error: 'address refused: wire.test resolves to a cloud metadata address',
    });
  });

  it('should send to a loopback address when private addresses are allowed', async () => {
    const result = await clientWith({ allowPrivateAddresses: true }).post(
      receiver.url('/'),
      '{}',
      {},
    );
    expect(result).toEqual({ statusCode: 200, durationMs: expect.any(Number) });
    expect(receiver.requests).toHaveLength(1);
  });

  it('should report a host that does not resolve as a DNS failure', async () => {
    const result = await clientWith().post('http://no-such-host.invalid/hook', '{}', {});
    expect(result.error).toMatch(/^no-such-host\.invalid could not be resolved \(DNS failure/);
    expect(result.statusCode).toBeUndefined();
  });

  describe('with a resolver that never answers for *.stalled.test', () => {
    // The system resolver for every other name, as a stalled upstream DNS server would leave it.
    const stallingLookup: LookupAll = (hostname, options, callback) => {
      if (!hostname.endsWith('.stalled.test')) dnsLookup(hostname, options, callback);
    };

    // The reason names the lookup's own deadline, which only its timer gives: no upper bound
    // on the duration, which a loaded machine stretches.
    it('should report the stalled lookup by its own deadline, not the total timeout', async () => {
      const client = clientWith(
        { connectTimeoutMs: 1_000, totalTimeoutMs: 10_000 },
        new BoundedLookup(2, stallingLookup),
      );
      const result = await client.post('http://hooks.stalled.test/hook', '{}', {});
      expect(result).toEqual({
        durationMs: expect.any(Number),
        error: 'hooks.stalled.test could not be resolved in time (no DNS answer within 0.8 s)',
      });
      expect(result.durationMs).toBeGreaterThanOrEqual(750);
    });

    it('should give its own reason, not the connect timeout, with the production 5 s', async () => {
      const client = clientWith({}, new BoundedLookup(2, stallingLookup));
      const result = await client.post('http://hooks.stalled.test/hook', '{}', {});
      expect(result.error).toBe(
        'hooks.stalled.test could not be resolved in time (no DNS answer within 4 s)',
      );
    }, 10_000);

    it('should not start a third lookup while two hosts’ lookups stall, and give that one up in time too', async () => {
      const client = clientWith(
        { connectTimeoutMs: 1_000, totalTimeoutMs: 10_000 },
        new BoundedLookup(2, stallingLookup),
      );
      const stalled = ['a', 'b'].map((name) =>
        client.post(`http://${name}.stalled.test/hook`, '{}', {}),
      );
      const waiting = client.post(
        receiver.url('/hook').replace('127.0.0.1', 'localhost'),
        '{}',
        {},
      );

      await expect(waiting).resolves.toEqual({
        durationMs: expect.any(Number),
        error: 'localhost could not be resolved in time (no DNS answer within 0.8 s)',
      });
      await Promise.all(stalled);
      expect(receiver.connections).toBe(0);
    });
  });

  it('should report a failed TLS handshake as a TLS error', async () => {
    const result = await clientWith().post(receiver.url('/').replace('http:', 'https:'), '{}', {});
    expect(result.error).toMatch(/^TLS error \(.+\)$/);
  });

  it('should answer, not throw, once closed', async () => {
    const client = clientWith();
    await client.close();
    await expect(client.post(receiver.url('/'), '{}', {})).resolves.toEqual({
      durationMs: expect.any(Number),
      error: 'not sent: the client is shut down',
    });
  });
});
