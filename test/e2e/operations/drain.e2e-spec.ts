import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { ShutdownService } from '../../../src/shutdown/shutdown.service.js';
import { AppProcess } from '../../support/app-process.js';
import { createTestApp } from '../../support/test-app.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';
import { waitFor } from '../../support/wait.js';

const DRAIN_MS = 5_000;

/** Whether a new connection to the instance is refused (nothing listens any more). */
async function refused(url: string): Promise<boolean> {
  try {
    await (await fetch(`${url}/health/live`)).arrayBuffer();
    return false;
  } catch (error) {
    return (error as { cause?: { code?: string } }).cause?.code === 'ECONNREFUSED';
  }
}

interface RawResponse {
  status: number;
  headers: Record<string, string>;
}

/** One HTTP/1.1 connection written by hand, so that a test decides when it is reused. */
class RawConnection {
  private received = '';
  private closedAt?: number;
  private error?: string;

  private constructor(private readonly socket: Socket) {
    socket.setEncoding('utf8').on('data', (chunk: string) => (this.received += chunk));
    socket.on('close', () => (this.closedAt = performance.now()));
    socket.on('error', (error: NodeJS.ErrnoException) => (this.error = error.code));
  }

  static open(port: number): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => resolve(new RawConnection(socket)));
      socket.once('error', reject);
    });
  }

  /** A connection on its way: what is written is sent once the kernel has made it. */
  static begin(port: number): RawConnection {
    return new RawConnection(connect(port, '127.0.0.1'));
  }

  write(text: string): void {
    this.socket.write(text);
  }

  /** When the server closed the connection (performance.now()), once it has. */
  async closed(timeoutMs: number): Promise<number> {
    await waitFor(() => Promise.resolve(this.closedAt !== undefined), timeoutMs);
    return this.closedAt!;
  }

  get isOpen(): boolean {
    return this.closedAt === undefined;
  }

  /** Waits for the next complete response (or an interim one) on the connection and takes it. */
  async response(): Promise<RawResponse> {
    let length = -1;
    await waitFor(() => {
      const end = this.received.indexOf('\r\n\r\n');
      if (end >= 0) {
        const head = this.received.slice(0, end);
        const bodyLength = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
        length = end + 4 + bodyLength;
        if (this.received.length >= length) return Promise.resolve(true);
      }
      if (this.closedAt !== undefined) {
        throw new Error(`closed before a whole response (${this.error ?? 'no error'})`);
      }
      return Promise.resolve(false);
    }, 10_000);
    const [statusLine, ...headerLines] = this.received
      .slice(0, this.received.indexOf('\r\n\r\n'))
      .split('\r\n');
    this.received = this.received.slice(length);
    const headers = Object.fromEntries(
      headerLines.map((line) => {
        const colon = line.indexOf(':');
        return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()];
      }),
    );
    return { status: Number(statusLine.split(' ')[1]), headers };
  }
}

const GET_LIVE = 'GET /health/live HTTP/1.1\r\nHost: localhost\r\n\r\n';
// A POST no balancer sends twice, answered without a credential: 400, the body being empty.
const POST_LOGIN =
  'POST /v1/auth/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n' +
  'Content-Length: 2\r\n\r\n{}';

describe('The shutdown drain of the built service (e2e)', () => {
  let database: TestDatabase;
  beforeEach(async () => {
    database = await createTestDatabase();
  });
  afterEach(async () => {
    await database.drop();
  });

  it('should answer not ready at once on SIGTERM, keep serving for SHUTDOWN_DRAIN_MS, then refuse connections and exit 0', async () => {
    const app = await AppProcess.start({ ...database.env, SHUTDOWN_DRAIN_MS: String(DRAIN_MS) });
    try {
      // Logged in before the signal, as a client already using the instance is.
      expect((await app.fetch('/v1/categories')).status).toBe(200);
      const signalledAt = performance.now();
      app.signal('SIGTERM');

      await waitFor(async () => (await fetch(`${app.url}/health/ready`)).status === 503, 3_000);
      const live = await fetch(`${app.url}/health/live`);
      expect({ status: live.status, connection: live.headers.get('connection') }).toEqual({
        status: 200,
        connection: 'close',
      });
      const api = await app.fetch('/v1/categories');
      expect({ status: api.status, connection: api.headers.get('connection') }).toEqual({
        status: 200,
        connection: 'close',
      });
      expect(await api.json()).toEqual({ categories: expect.any(Array) });

      await waitFor(() => refused(app.url), DRAIN_MS + 10_000);
      // Timers may fire a millisecond early; the drain is whole seconds.
      expect(performance.now() - signalledAt).toBeGreaterThanOrEqual(DRAIN_MS - 50);
      expect(await app.exitCode()).toBe(0);
      const messages = app.logs().map((line) => String(line.msg));
      const drainStarted = messages.indexOf(
        `Draining for ${DRAIN_MS} ms: not ready, still serving`,
      );
      const listenerClosed = messages.findIndex((msg) =>
        msg.startsWith('Not accepting connections'),
      );
      expect(drainStarted).toBeGreaterThanOrEqual(0);
      expect(listenerClosed).toBeGreaterThan(drainStarted);
      expect(messages).toContain('Shut down cleanly');
    } finally {
      await app.stop();
    }
  });

  it('should serve requests on connections kept alive from before SIGTERM, answer every request of the drain with Connection: close, and close idle connections when it ends', async () => {
    const app = await AppProcess.start({
      ...database.env,
      SHUTDOWN_DRAIN_MS: String(DRAIN_MS),
      // Far beyond the drain: only the shutdown may close an idle connection here.
      HTTP_KEEP_ALIVE_TIMEOUT_MS: '60000',
    });
    try {
      const idle = await RawConnection.open(app.port);
      const reused = await RawConnection.open(app.port);
      for (const connection of [idle, reused]) {
        connection.write(GET_LIVE);
        expect((await connection.response()).headers.connection).toBe('keep-alive');
      }
      // A request in flight at the signal: its headers are in (100 Continue), its body not yet.
      const body = JSON.stringify({ username: 'admin', password: 'not the password' });
      const inFlight = await RawConnection.open(app.port);
      inFlight.write(
        'POST /v1/auth/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n' +
          `Content-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n`,
      );
      expect((await inFlight.response()).status).toBe(100);

      const signalledAt = performance.now();
      app.signal('SIGTERM');
      await waitFor(async () => (await fetch(`${app.url}/health/ready`)).status === 503, 3_000);

      inFlight.write(body);
      expect(await inFlight.response()).toEqual({
        status: 401,
        headers: expect.objectContaining({ connection: 'close' }),
      });
      reused.write(GET_LIVE);
      expect(await reused.response()).toEqual({
        status: 200,
        headers: expect.objectContaining({ connection: 'close' }),
      });
      await reused.closed(1_000);
      await inFlight.closed(1_000);
      expect(idle.isOpen).toBe(true);

      // Closed when the drain ends, not before: a balancer reusing it meanwhile is served.
      const idleClosedAt = await idle.closed(DRAIN_MS + 5_000);
      expect(idleClosedAt - signalledAt).toBeGreaterThanOrEqual(DRAIN_MS - 50);
      expect(await app.exitCode()).toBe(0);
    } finally {
      await app.stop();
    }
  });
});

describe('The listener closing at the end of the drain (e2e)', () => {
  it('should answer a request on a connection the kernel made just before the listener closed', async () => {
    const t = await createTestApp({ SHUTDOWN_DRAIN_MS: String(DRAIN_MS) }, { signIn: false });
    try {
      await t.app.listen(0, '127.0.0.1');
      const { port } = t.app.getHttpServer().address() as AddressInfo;
      // Made after the event loop's last accept and before the listener closes, as a
      // balancer's connection can be under load: the kernel completes it and holds it in the
      // listener's queue. Immediates run in order: this one before the shutdown's.
      const late = new Promise<RawConnection>((resolve) =>
        setImmediate(() => {
          const connection = RawConnection.begin(port);
          connection.write(POST_LOGIN);
          resolve(connection);
        }),
      );
      const shutdown = t.app.get(ShutdownService).beforeApplicationShutdown();

      expect(await (await late).response()).toEqual({
        status: 400,
        headers: expect.objectContaining({ connection: 'close' }),
      });
      await shutdown;
      expect(await refused(`http://127.0.0.1:${port}`)).toBe(true);
    } finally {
      await t.close();
    }
  });

  it('should answer a request that arrives, after the idle connections were closed, on a connection accepted with none yet', async () => {
    const t = await createTestApp({ SHUTDOWN_DRAIN_MS: String(DRAIN_MS) }, { signIn: false });
    try {
      await t.app.listen(0, '127.0.0.1');
      const { port } = t.app.getHttpServer().address() as AddressInfo;
      // Used and kept alive: the shutdown closes it with the other idle connections.
      const used = await RawConnection.open(port);
      used.write(GET_LIVE);
      expect((await used.response()).status).toBe(200);
      // Accepted with its request not read yet, as a balancer's is when the event loop is busy.
      const silent = await RawConnection.open(port);
      const shutdown = t.app.get(ShutdownService).beforeApplicationShutdown();

      await used.closed(5_000);
      // The hand-off's 503s are over once the listener has closed: a GET is served too.
      silent.write(GET_LIVE);
      expect(await silent.response()).toEqual({
        status: 200,
        headers: expect.objectContaining({ connection: 'close' }),
      });
      await silent.closed(1_000);
      await shutdown;
    } finally {
      await t.close();
    }
  });

  it('should answer after the drain 503 what a balancer sends elsewhere, serve a POST, and close the listener once connections stop coming', async () => {
    const t = await createTestApp({ SHUTDOWN_DRAIN_MS: String(DRAIN_MS) }, { signIn: false });
    try {
      await t.app.listen(0, '127.0.0.1');
      const { port } = t.app.getHttpServer().address() as AddressInfo;
      // A balancer told nothing still connects after the drain.
      const [get, post] = await Promise.all([RawConnection.open(port), RawConnection.open(port)]);
      const shutdown = t.app.get(ShutdownService).beforeApplicationShutdown();

      get.write(GET_LIVE);
      expect(await get.response()).toEqual({
        status: 503,
        headers: expect.objectContaining({ connection: 'close', 'retry-after': '1' }),
      });
      post.write(POST_LOGIN);
      expect(await post.response()).toEqual({
        status: 400,
        headers: expect.objectContaining({ connection: 'close' }),
      });
      await shutdown;
      expect(await refused(`http://127.0.0.1:${port}`)).toBe(true);
    } finally {
      await t.close();
    }
  });
});
