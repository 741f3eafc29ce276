import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { ApiException } from '../common/errors/api-exception.js';
import { messageOf } from '../common/errors/message-of.js';
import { IDEMPOTENCY_KEY_HEADER } from '../common/http/header-names.js';
import { RecurringJob } from '../events/event-handlers.decorator.js';
import {
  IdempotencyRepository,
  type IdempotencyScope,
  type StoredResponse,
} from './idempotency.repository.js';

/** docs/api.md (Retries): a response is kept 24 h. */
export const RETENTION_MS = 24 * 3_600_000;
/**
 * How long a running claim holds its key before another request may take it over: its
 * instance is then presumed dead. Well above the longest request (the database statement
 * timeout, or the image storage's connect and request timeouts over three attempts).
 */
export const LEASE_MS = 60_000;
/** A running request usually ends within a second. */
export const IN_PROGRESS_RETRY_AFTER_SECONDS = 1;
const SWEEP_INTERVAL_MS = 10 * 60_000;
// The row can vanish between a failed claim and the read (released, expired): claim again.
const CLAIM_ATTEMPTS = 3;

/** A key this request now holds: it runs, then completes or fails the claim. */
export interface Claim {
  scope: IdempotencyScope;
  token: string;
}

export type Start = { claim: Claim } | { replay: StoredResponse };

/**
 * The Idempotency-Key rules: the first request with a key runs and its answer is kept; a
 * retry of the same request gets that answer again; anything else with the key is refused.
 */
@Injectable()
export class IdempotencyService {
  private readonly logger = new Logger('Idempotency');

  constructor(private readonly keys: IdempotencyRepository) {}

  /**
   * Claims the key, or answers what an earlier request with it decided: its stored response
   * to replay, 409 IDEMPOTENCY_KEY_IN_PROGRESS while it runs, 422 IDEMPOTENCY_KEY_REUSED
   * when it was another request.
   */
  async begin(scope: IdempotencyScope, fingerprint: string): Promise<Start> {
    for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt += 1) {
      const token = randomUUID();
      if (await this.keys.claim(scope, fingerprint, token, LEASE_MS, RETENTION_MS)) {
        return { claim: { scope, token } };
      }
      const found = await this.keys.find(scope);
      if (!found) continue;
      if (found.fingerprint !== fingerprint) {
        throw new ApiException(
          'IDEMPOTENCY_KEY_REUSED',
          `This ${IDEMPOTENCY_KEY_HEADER} was used for a different request; send a new key with a new request`,
        );
      }
      if (found.response) return { replay: found.response };
      break;
    }
    throw ApiException.retryLater(
      'IDEMPOTENCY_KEY_IN_PROGRESS',
      `A request with this ${IDEMPOTENCY_KEY_HEADER} is still in progress; retry shortly`,
      IN_PROGRESS_RETRY_AFTER_SECONDS,
    );
  }

  /** Keeps the response for replays. A failure to store it is logged, not answered. */
  async complete(claim: Claim, response: StoredResponse): Promise<void> {
    try {
      if (!(await this.keys.complete(claim.scope, claim.token, response, RETENTION_MS))) {
        this.logger.warn(`${describe(claim)}: the claim was taken over; the response is not kept`);
      }
    } catch (error) {
      // The work is done and the client gets its answer; a retry runs again once the lease ends.
      this.logger.warn(`${describe(claim)}: the response could not be stored: ${messageOf(error)}`);
    }
  }

  /**
   * A failed request: a 400 was refused before any work and a 5xx did not finish it, so the
   * key is released and the retry runs; any other error is an answer, kept like a success.
   */
  async fail(claim: Claim, error: ApiException): Promise<void> {
    const status = error.getStatus();
    if (status === 400 || status >= 500) {
      await this.release(claim);
      return;
    }
    const body = { code: error.code, message: error.message, details: error.details };
    await this.complete(claim, { status, headers: error.headers, body });
  }

  /** Removes every expired key in one statement; how many. */
  removeExpired(): Promise<number> {
    return this.keys.deleteExpired();
  }

  private async release(claim: Claim): Promise<void> {
    try {
      await this.keys.release(claim.scope, claim.token);
    } catch (error) {
      // Then the key stays running until its lease ends, and a retry meanwhile gets 409.
      this.logger.warn(`${describe(claim)}: the key could not be released: ${messageOf(error)}`);
    }
  }

  /** A recurring job (docs/jobs.md): a failure is logged and retried by the engine. */
  @RecurringJob('idempotency.sweep', SWEEP_INTERVAL_MS)
  async sweep(): Promise<void> {
    const removed = await this.removeExpired();
    if (removed > 0) this.logger.debug(`Removed ${removed} expired idempotency keys`);
  }
}

const describe = ({ scope }: Claim) => `${scope.operation} for user ${scope.userId}`;
