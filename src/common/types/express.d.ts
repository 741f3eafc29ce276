import 'express';
import type { ApiException } from '../errors/api-exception.js';
import type { Principal } from './principal.js';

declare module 'express-serve-static-core' {
  interface Request {
    /** Set by the request-id middleware before anything else runs. */
    requestId: string;
    /** Set by IdentifyGuard when the request carries a valid credential. */
    principal?: Principal;
    /**
     * Set instead of `principal` when a credential was sent but is not valid; the
     * authentication guard throws it, so that guards in between (rate limiting) can
     * still see the request as unauthenticated.
     */
    authFailure?: ApiException;
  }
}
