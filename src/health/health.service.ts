import {
  HttpStatus,
  Inject,
  Injectable,
  Logger,
  ServiceUnavailableException,
} from '@nestjs/common';
import {
  HealthCheckService,
  HealthIndicatorService,
  TypeOrmHealthIndicator,
  type HealthIndicatorResult,
} from '@nestjs/terminus';
import { ApiException } from '../common/errors/api-exception.js';
import { rateLimitConfig, type RateLimitConfig } from '../config/rate-limit.config.js';
import { ShutdownService } from '../lifecycle/shutdown.service.js';
import { MediaService } from '../media/media.service.js';
import {
  RATE_LIMIT_STORAGE,
  type RateLimitStorage,
} from '../rate-limit/storage/rate-limit-storage.js';

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
const RETRY_AFTER_SECONDS = '5';

/**
 * Liveness says the process runs; readiness says this instance should get traffic: it is
 * not shutting down, the database and the image storage answer, and so does Redis when
 * REDIS_URL is set.
 * Clients see each check's status only; the reasons go to the log when readiness changes.
 */
@Injectable()
export class HealthService {
  private readonly logger = new Logger('Health');
  private wasReady?: boolean;

  constructor(
    private readonly healthCheck: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly database: TypeOrmHealthIndicator,
    private readonly shutdown: ShutdownService,
    @Inject(RATE_LIMIT_STORAGE) private readonly rateLimitStorage: RateLimitStorage,
    @Inject(rateLimitConfig.KEY) private readonly rateLimit: RateLimitConfig,
    private readonly media: MediaService,
  ) {}

  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  async ready(): Promise<Readiness> {
    try {
      const result = await this.healthCheck.check([
        () => this.serverCheck(),
        () => this.database.pingCheck('database', { timeout: CHECK_TIMEOUT_MS }),
        ...(this.rateLimit.redisUrl ? [() => this.redisCheck()] : []),
        () => this.storageCheck(),
      ]);
      this.noteReadiness(true, result.details);
      return { status: 'ok', checks: statuses(result.details) };
    } catch (error) {
      if (!(error instanceof ServiceUnavailableException)) throw error;
      const { details } = error.getResponse() as { details: Record<string, CheckOutcome> };
      this.noteReadiness(false, details);
      const down = Object.keys(details).filter((key) => details[key].status !== 'up');
      throw new ApiException(
        HttpStatus.SERVICE_UNAVAILABLE,
        'SERVICE_UNAVAILABLE',
        `Not ready: ${down.join(', ')} down`,
        { checks: statuses(details) },
        { 'Retry-After': RETRY_AFTER_SECONDS },
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
      .attempt(() => this.rateLimitStorage.ping())
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
