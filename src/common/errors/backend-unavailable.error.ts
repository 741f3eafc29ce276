import { messageOf } from './message-of.js';

/**
 * A backend other than the database (the image storage) failed or did not answer in time.
 * The exception filter answers it 503 SERVICE_UNAVAILABLE with `Retry-After`; the cause
 * goes to the log only.
 */
export class BackendUnavailableError extends Error {
  constructor(
    /** Named in the client's message, e.g. "Image storage". */
    readonly backend: string,
    readonly retryAfterSeconds: number,
    cause: unknown,
  ) {
    super(`${backend} is unavailable: ${messageOf(cause)}`, {
      cause,
    });
  }
}
