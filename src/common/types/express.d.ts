import 'express';
import type { ApiException } from '../errors/api-exception.js';
import type { Principal } from './principal.js';

declare module 'express-serve-static-core' {
  interface Request {
    /**
     * Set by the request-id middleware before anything else runs: the id the response's
     * X-Request-Id and an error body carry (`clientRequestId` when there is one, else
     * `ownRequestId`).
     */
    requestId: string;
    /** The service's own id of the request, new for each; what the audit log and the logs record. */
    ownRequestId: string;
    /** The caller's well-formed X-Request-Id, echoed in the response, logged beside the own id. */
    clientRequestId?: string;
    /** Set by ResolveCredentialsGuard when the request carries a valid credential. */
    principal?: Principal;
    /**
     * Set instead of `principal` when a credential was sent but is not valid; the
     * authentication guard throws it, so that guards in between (rate limiting) can
     * still see the request as unauthenticated.
     */
    authFailure?: ApiException;
    /**
     * Set by ResolveCredentialsGuard instead of looking a credential up, when the client
     * address has spent a budget that bounds look-ups; the rate limiter answers with it (429).
     */
    rateLimitRefusal?: ApiException;
    /**
     * Set by JsonBodyMiddleware when the JSON body cannot be read; ContentTypeGuard throws
     * it, so that the request is counted by the rate limiter first, like any other.
     */
    bodyError?: ApiException;
  }
}
