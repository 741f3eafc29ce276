import type { Server } from 'node:http';
import { Inject, Injectable, Logger, type BeforeApplicationShutdown } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { NextFunction, Request, Response } from 'express';
import { appConfig, type AppConfig } from '../config/app.config.js';

/**
 * Drains the HTTP server before the database and Redis are closed. On a signal, `drain()`
 * makes readiness report 503 while the service still accepts and serves for
 * SHUTDOWN_DRAIN_MS, so that balancers stop sending first; then, on shutdown, it stops
 * accepting connections, lets the requests in flight finish (bounded by
 * SHUTDOWN_TIMEOUT_MS), and closes what is left.
 */
@Injectable()
export class ShutdownService implements BeforeApplicationShutdown {
  private readonly logger = new Logger('Shutdown');
  private draining = false;
  private inFlight = 0;
  private onIdle?: () => void;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(appConfig.KEY) private readonly config: AppConfig,
  ) {}

  get isShuttingDown(): boolean {
    return this.draining;
  }

  /** Express middleware that counts requests in flight and, while draining, ends keep-alive. */
  trackRequests() {
    return (_req: Request, res: Response, next: NextFunction): void => {
      this.inFlight += 1;
      if (this.draining) res.setHeader('Connection', 'close');
      res.once('close', () => {
        this.inFlight -= 1;
        if (this.inFlight === 0) this.onIdle?.();
      });
      next();
    };
  }

  /** Not ready from now on; resolves after SHUTDOWN_DRAIN_MS, still serving meanwhile. */
  async drain(): Promise<void> {
    this.draining = true;
    const { drainMs } = this.config.shutdown;
    if (drainMs === 0 || !this.server()?.listening) return;
    this.logger.log(`Draining for ${drainMs} ms: not ready, still serving`);
    await new Promise((resolve) => setTimeout(resolve, drainMs));
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.draining = true;
    const server = this.server();
    if (!server?.listening) return;
    const { timeoutMs } = this.config.shutdown;
    this.logger.log(`Not accepting connections; waiting for ${this.inFlight} request(s) in flight`);
    // Stops listening and closes idle keep-alive connections; busy ones finish first.
    server.close();
    if (!(await this.requestsFinished(timeoutMs))) {
      this.logger.warn(
        `${this.inFlight} request(s) still running after ${timeoutMs} ms; closing their connections`,
      );
    }
    server.closeAllConnections();
  }

  private server(): Server | undefined {
    return this.adapterHost.httpAdapter?.getHttpServer() as Server | undefined;
  }

  private requestsFinished(timeoutMs: number): Promise<boolean> {
    if (this.inFlight === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.onIdle = () => {
        clearTimeout(timer);
        resolve(true);
      };
    });
  }
}
