/** However many attempts have failed, the next waits at most this long. */
export const MAX_RETRY_DELAY_MS = 60 * 60_000;

/**
 * How long to wait after the `attempts`-th failed attempt: "full jitter", a uniform draw
 * between 0 and an exponential ceiling (base, 2 × base, 4 × base, ... capped at an hour), so
 * that deliveries that failed together (a receiver down) do not all come back together.
 */
export function retryDelayMs(attempts: number, baseMs: number, random = Math.random): number {
  const ceiling = Math.min(MAX_RETRY_DELAY_MS, baseMs * 2 ** Math.max(0, attempts - 1));
  return Math.floor(random() * ceiling);
}

/**
 * What a failed attempt leads to: another one after `retryDelayMs`, or none once the delivery
 * has been retried for `retryForMs` since its first attempt (it is then marked failed). From
 * the first attempt, not from the event: a delivery that waited (for its pet's earlier one,
 * or a disabled subscription) still gets its 24 hours of retries.
 */
export function nextAttemptAfterFailure(
  delivery: { attempts: number; firstAttemptAt: Date },
  now: Date,
  config: { retryBaseMs: number; retryForMs: number },
  random = Math.random,
): Date | undefined {
  if (now.getTime() - delivery.firstAttemptAt.getTime() >= config.retryForMs) return undefined;
  return new Date(now.getTime() + retryDelayMs(delivery.attempts, config.retryBaseMs, random));
}
