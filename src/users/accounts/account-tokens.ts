import { createHash, randomBytes } from 'node:crypto';
import { EMAIL_CHANGE_TTL_SECONDS } from '../email-change.js';

/** What a mailed token lets its holder do, and the route that takes it. */
export type AccountTokenPurpose = 'verify-email' | 'reset-password' | 'invitation' | 'email-change';

/** How long each kind of token is valid (contract section 8, "Accounts"). */
export const TOKEN_TTL_SECONDS: Record<AccountTokenPurpose, number> = {
  'verify-email': 24 * 3600,
  'reset-password': 3600,
  invitation: 7 * 24 * 3600,
  'email-change': EMAIL_CHANGE_TTL_SECONDS,
};

/** The purposes each route takes: a token of another purpose is refused like an unknown one. */
export const VERIFY_EMAIL_PURPOSES: AccountTokenPurpose[] = ['verify-email', 'email-change'];
export const RESET_PASSWORD_PURPOSES: AccountTokenPurpose[] = ['reset-password', 'invitation'];

const TOKEN_BYTES = 32;
/** 32 bytes in base64url without padding: 43 characters. */
export const ACCOUNT_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export const generateAccountToken = (): string => randomBytes(TOKEN_BYTES).toString('base64url');

/** SHA-256, hex: the token has 256 bits of entropy, so a fast hash is enough (as for API keys). */
export const hashAccountToken = (token: string): string =>
  createHash('sha256').update(token).digest('hex');
