import { Inject, Injectable, Logger, ServiceUnavailableException } from '@nestjs/common';
import {
  HealthCheckService,
  HealthIndicatorService,
  TypeOrmHealthIndicator,
  type HealthIndicatorResult,
} from '@nestjs/terminus';
import { ApiException } from '../common/errors/api-exception.js';
import { rateLimitConfig, type RateLimitConfig } from '../config/rate-limit.config.js';
import { ShutdownService } from '../shutdown/shutdown.service.js';
import { MediaService } from '../media/media.service.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { RateLimitService } from '../rate-limit/rate-limit.service.js';

type CheckStatus = 'up' | 'down';
export interface Readiness {
  status: 'ok';
  checks: Record<string, CheckStatus>;
}
interface CheckOutcome {
  status: string;
  message?: string;
}

// A probe must answer quickly: a dependency slower than this counts as down.
const CHECK_TIMEOUT_MS = 2_000;
const RETRY_AFTER_SECONDS = 5;
// How long a successful readiness answer is reused, counted from when its checks began.
const READY_REUSE_MS = 1_000;

/**
 * Liveness says the process runs; readiness says this instance should get traffic: it is
 * not shutting down, the database and the image storage answer, and so does Redis when
 * REDIS_URL is set.
 * Clients see each check's status only; the reasons go to the log when readiness changes.
 *
 * The probe is public, so its work is bounded whatever the request rate: calls that arrive
 * while checks run share them, and a success is reused for a second. A failure is never
 * reused (the next call checks again), and shutting down shows at once.
 */
@Injectable()
export class HealthService {
  private readonly logger = new Logger('Health');
  private wasReady?: boolean;
  private running?: Promise<Readiness>;
  private lastSuccess?: { startedAt: number; readiness: Readiness };

  constructor(
    private readonly healthCheck: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly database: TypeOrmHealthIndicator,
    private readonly shutdown: ShutdownService,
    private readonly rateLimits: RateLimitService,
    @Inject(rateLimitConfig.KEY) private readonly rateLimit: RateLimitConfig,
    private readonly media: MediaService,
    private readonly metrics: MetricsService,
  ) {}

  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  ready(): Promise<Readiness> {
    if (this.shutdown.isShuttingDown) return this.check();
    const reusable = this.lastSuccess;
    if (reusable && performance.now() - reusable.startedAt < READY_REUSE_MS) {
      return Promise.resolve(reusable.readiness);
    }
    this.running ??= this.check().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async check(): Promise<Readiness> {
    const startedAt = performance.now();
    this.lastSuccess = undefined;
    try {
      const result = await this.healthCheck.check([
        () => this.serverCheck(),
        () => this.database.pingCheck('database', { timeout: CHECK_TIMEOUT_MS }),
        ...(this.rateLimit.redisUrl ? [() => this.redisCheck()] : []),
        () => this.storageCheck(),
      ]);
      this.noteReadiness(true, result.details);
      const readiness: Readiness = { status: 'ok', checks: statuses(result.details) };
      if (!this.shutdown.isShuttingDown) this.lastSuccess = { startedAt, readiness };
      return readiness;
    } catch (error) {
      if (!(error instanceof ServiceUnavailableException)) throw error;
      const { details } = error.getResponse() as { details: Record<string, CheckOutcome> };
      this.noteReadiness(false, details);
      const down = Object.keys(details).filter((key) => details[key].status !== 'up');
      throw ApiException.retryLater(
        'SERVICE_UNAVAILABLE',
        `Not ready: ${down.join(', ')} down`,
        RETRY_AFTER_SECONDS,
        { checks: statuses(details) },
      );
    }
  }

  private serverCheck(): HealthIndicatorResult<'server'> {
    const check = this.indicators.check('server');
    return this.shutdown.isShuttingDown ? check.down('shutting down') : check.up();
  }

  private redisCheck() {
    return this.indicators
      .check('redis')
      .attempt(() => this.rateLimits.pingCounters())
      .withTimeout(CHECK_TIMEOUT_MS);
  }

  // Image storage: the media directory, or the bucket when S3_BUCKET is set.
  private storageCheck() {
    return this.indicators
      .check('storage')
      .attempt(() => this.media.checkStorage())
      .withTimeout(CHECK_TIMEOUT_MS);
  }

  private noteReadiness(ready: boolean, details: Record<string, CheckOutcome>): void {
    this.metrics.countReadinessCheck(ready);
    if (ready === this.wasReady) return;
    this.wasReady = ready;
    if (ready) {
      this.logger.log('Ready');
      return;
    }
    const reasons = Object.entries(details)
      .filter(([, outcome]) => outcome.status !== 'up')
      .map(([key, outcome]) => `${key}: ${outcome.message ?? 'down'}`);
    this.logger.warn(`Not ready (${reasons.join('; ')})`);
  }
}

function statuses(details: Record<string, CheckOutcome>): Record<string, CheckStatus> {
  return Object.fromEntries(
    Object.entries(details).map(([key, outcome]) => [key, outcome.status === 'up' ? 'up' : 'down']),
  );
}
