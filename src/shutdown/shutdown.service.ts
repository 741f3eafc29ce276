import type { Server } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';
import { Inject, Injectable, Logger, type BeforeApplicationShutdown } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { NextFunction, Request, Response } from 'express';
import { ApiException } from '../common/errors/api-exception.js';
import { appConfig, type AppConfig } from '../config/app.config.js';
import { acceptQueueLength } from './accept-queue.js';

// http.Server's close() also closes idle connections at once; net.Server's only stops listening.
const stopListening = (server: Server): void => void NetServer.prototype.close.call(server);
// How long the listener's close waits for the kernel's queue of connections to be empty.
const ACCEPT_QUEUE_WAIT_MS = 1_000;
// How long a connection accepted with no request yet gets to show one once the listener has
// closed: a request on its way behind a busy event loop is read well within it, while a
// pre-connect or a probe that sends nothing holds the shutdown no longer.
const FIRST_REQUEST_WAIT_MS = 2_000;
// After the drain, requests still arriving come from a sender told nothing (nginx OSS under
// compose, say): the hand-off answers the ones a balancer may send again elsewhere 503, which
// its passive check counts as a failure, so that it stops making connections here before the
// listener closes and resets any it made. It ends once no connection has come for
// HAND_OFF_QUIET_MS (at once when the balancer follows readiness), or after HAND_OFF_MAX_MS.
const HAND_OFF_QUIET_MS = 250;
const HAND_OFF_MAX_MS = 1_000;
// What nginx sends to another server after a 503 (proxy_next_upstream http_503): no POST or PATCH.
const RETRIED_ELSEWHERE = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);
const HAND_OFF_RETRY_AFTER_SECONDS = 1;

/**
 * Drains the HTTP server before the database and Redis are closed. On a signal, `drain()`
 * makes readiness report 503 while the service still accepts and serves for
 * SHUTDOWN_DRAIN_MS, every answer with `Connection: close`, so that balancers stop sending
 * and drop their kept-alive connections first; then, on shutdown, it hands off to the other
 * instances a balancer still sending (503 for what it retries elsewhere), stops accepting
 * connections, closes the idle ones, gives those with no request yet a moment to send it,
 * lets the requests in flight finish (bounded by SHUTDOWN_TIMEOUT_MS), and closes what is
 * left.
 */
@Injectable()
export class ShutdownService implements BeforeApplicationShutdown {
  private readonly logger = new Logger('Shutdown');
  private draining = false;
  private handingOff = false;
  private lastConnectionAt = 0;
  private readonly inFlight = new Set<Response>();
  private readonly connections = new Set<Socket>();
  // Accepted connections with no request yet: a balancer has one written, on its way.
  private readonly silent = new Set<Socket>();
  private onChange?: () => void;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(appConfig.KEY) private readonly config: AppConfig,
  ) {}

  get isShuttingDown(): boolean {
    return this.draining;
  }

  /**
   * Express middleware that tracks requests in flight and, while draining, ends keep-alive;
   * it also follows the server's connections, to tell an idle one from one not used yet.
   */
  trackRequests() {
    const server = this.server();
    server?.on('connection', (socket: Socket) => {
      this.lastConnectionAt = performance.now();
      this.connections.add(socket);
      this.silent.add(socket);
      socket.once('close', () => {
        this.connections.delete(socket);
        this.silent.delete(socket);
        this.onChange?.();
      });
    });
    // The server's own event: a request answered before this middleware still counts.
    server?.on('request', (req: Request) => {
      this.silent.delete(req.socket);
      this.onChange?.();
    });
    return (_req: Request, res: Response, next: NextFunction): void => {
      this.inFlight.add(res);
      if (this.draining) endKeepAlive(res);
      res.once('close', () => {
        this.inFlight.delete(res);
        this.onChange?.();
      });
      next();
    };
  }

  /**
   * Express middleware, after the request log: during the hand-off, a request a balancer
   * would send to another instance is answered 503 with `Retry-After` and `Connection: close`.
   */
  handOffRetryable() {
    return (req: Request, _res: Response, next: NextFunction): void => {
      if (!this.handingOff || !RETRIED_ELSEWHERE.has(req.method)) return next();
      next(
        ApiException.retryLater(
          'SERVICE_UNAVAILABLE',
          'This instance is shutting down; retry shortly',
          HAND_OFF_RETRY_AFTER_SECONDS,
        ),
      );
    };
  }

  /** Not ready from now on; resolves after SHUTDOWN_DRAIN_MS, still serving meanwhile. */
  async drain(): Promise<void> {
    this.draining = true;
    // A connection whose answer started before the signal stays open; one answered from
    // now on is closed after it, so that no balancer keeps it for a request after the drain.
    for (const res of this.inFlight) endKeepAlive(res);
    const { drainMs } = this.config.shutdown;
    if (drainMs === 0 || !this.server()?.listening) return;
    this.logger.log(`Draining for ${drainMs} ms: not ready, still serving`);
    await new Promise((resolve) => setTimeout(resolve, drainMs));
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.draining = true;
    const server = this.server();
    if (!server?.listening) return;
    const { drainMs, timeoutMs } = this.config.shutdown;
    if (drainMs > 0) await this.handOff();
    this.logger.log(
      `Not accepting connections; waiting for ${this.inFlight.size} request(s) in flight`,
    );
    await this.acceptQueueEmpty(server);
    stopListening(server);
    if (drainMs === 0) {
      // Without a drain (development, tests) no balancer is sending: idle connections close now.
      server.closeIdleConnections();
    } else {
      // Kept-alive connections with no request on them: a balancer that kept one past the
      // drain (its keep-alive longer than SHUTDOWN_DRAIN_MS) may lose a request written onto
      // it. One not used yet stays a moment: its request, on its way under load, is answered
      // with Connection: close.
      this.closeUsedIdleConnections();
      if (!(await this.until(() => this.silent.size === 0, FIRST_REQUEST_WAIT_MS))) {
        for (const socket of [...this.silent]) socket.destroy();
      }
    }
    if (!(await this.until(() => this.inFlight.size === 0, timeoutMs))) {
      this.logger.warn(
        `${this.inFlight.size} request(s) still running after ${timeoutMs} ms; closing their connections`,
      );
    }
    server.closeAllConnections();
  }

  /**
   * Resolves once no connection has come for HAND_OFF_QUIET_MS, or HAND_OFF_MAX_MS passed.
   * The 503s end with it: what still comes, on connections accepted before the listener
   * closes, is served, since nothing is there to be told any more.
   */
  private async handOff(): Promise<void> {
    this.handingOff = true;
    const deadline = performance.now() + HAND_OFF_MAX_MS;
    try {
      for (;;) {
        const quietAt = this.lastConnectionAt + HAND_OFF_QUIET_MS;
        const now = performance.now();
        if (now >= quietAt) return;
        if (now >= deadline) {
          this.logger.warn('Connections still arriving after the drain: closing the listener');
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, Math.min(quietAt, deadline) - now));
      }
    } finally {
      this.handingOff = false;
    }
  }

  /**
   * Resolves when the kernel holds no connection for the listener that the service has not
   * accepted: closing the listener resets those, and a balancer that has written a POST onto
   * one answers 502 (it never sends a POST twice). A busy event loop leaves them waiting
   * (nginx, told nothing, connects anew for every request of the drain). The event loop
   * accepts all that wait just before it runs setImmediate callbacks; the queue is looked
   * at after that, and the caller closes the listener at once after the look that finds it
   * empty (Linux; elsewhere after one turn of the loop). From then on a new connection is
   * refused, which a balancer retries elsewhere.
   */
  private async acceptQueueEmpty(server: Server): Promise<void> {
    const address = server.address();
    const port = typeof address === 'object' ? address?.port : undefined;
    const deadline = performance.now() + ACCEPT_QUEUE_WAIT_MS;
    do await new Promise((resolve) => setImmediate(resolve));
    while (
      port !== undefined &&
      (acceptQueueLength(port) ?? 0) > 0 &&
      performance.now() < deadline
    );
  }

  private server(): Server | undefined {
    return this.adapterHost.httpAdapter?.getHttpServer() as Server | undefined;
  }

  private closeUsedIdleConnections(): void {
    const busy = new Set([...this.inFlight].map((res) => res.socket));
    for (const socket of this.connections) {
      if (!this.silent.has(socket) && !busy.has(socket)) socket.destroy();
    }
  }

  /** Resolves true once `done()` holds, false if `timeoutMs` passes first. */
  private until(done: () => boolean, timeoutMs: number): Promise<boolean> {
    if (done()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const finish = (result: boolean) => {
        clearTimeout(timer);
        this.onChange = undefined;
        resolve(result);
      };
      const timer = setTimeout(() => finish(false), timeoutMs);
      this.onChange = () => {
        if (done()) finish(true);
      };
    });
  }
}

function endKeepAlive(res: Response): void {
  if (!res.headersSent) res.setHeader('Connection', 'close');
}
