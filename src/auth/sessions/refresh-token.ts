import { createHash, randomBytes } from 'node:crypto';

const PREFIX = 'rt_';
/** 32 random bytes, 256 bits: docs/identity.md, Sessions. */
const RANDOM_BYTES = 32;

/** `rt_` then 43 base64url characters: what generateRefreshToken makes. */
export const REFRESH_TOKEN_PATTERN = /^rt_[A-Za-z0-9_-]{43}$/;

export function generateRefreshToken(): string {
  return PREFIX + randomBytes(RANDOM_BYTES).toString('base64url');
}

/** SHA-256, hex: what the database keeps of a refresh token. */
export function hashRefreshToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
