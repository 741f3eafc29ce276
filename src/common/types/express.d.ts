import 'express';
import type { Principal } from './principal.js';

declare module 'express-serve-static-core' {
  interface Request {
    /** Set by the request-id middleware before anything else runs. */
    requestId: string;
    /** The authenticated caller, once the identify guard has resolved a credential. */
    principal?: Principal;
  }
}
