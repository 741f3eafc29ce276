import { createHash, randomBytes } from 'node:crypto';
import { generateSecret, generateURI, verify, type VerifyResult } from 'otplib';

/** RFC 6238 with otplib's defaults: SHA-1, 6 digits, 30-second steps (contract section 9). */
export const TOTP_PERIOD_SECONDS = 30;
/** ±1 step: a code of the previous or next step is accepted, for clocks that drift. */
const TOLERANCE_SECONDS = TOTP_PERIOD_SECONDS;
const ISSUER = 'Petstore';

export const TOTP_CODE_PATTERN = /^\d{6}$/;

export const RECOVERY_CODES_ISSUED = 10;
/** Three groups of four base32 characters: 60 random bits, typed with or without dashes. */
export const RECOVERY_CODE_PATTERN = /^[A-Za-z2-7]{4}-?[A-Za-z2-7]{4}-?[A-Za-z2-7]{4}$/;
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** A new secret (20 random bytes, base32) and the URL an authenticator app scans. */
export function newTotpSecret(accountName: string): { secret: string; otpauthUrl: string } {
  const secret = generateSecret();
  return { secret, otpauthUrl: generateURI({ issuer: ISSUER, label: accountName, secret }) };
}

/**
 * The time step `code` belongs to, at `now` within ±1 step, if it is later than
 * `afterTimeStep` (the last one accepted: a code is good once); undefined otherwise.
 */
export async function matchTimeStep(
  secret: string,
  code: string,
  now: Date,
  afterTimeStep: number | null,
): Promise<number | undefined> {
  // The TOTP result (with its time step): otplib's union also covers HOTP's.
  const result = (await verify({
    secret,
    token: code,
    epoch: Math.floor(now.getTime() / 1000),
    epochTolerance: TOLERANCE_SECONDS,
    ...(afterTimeStep !== null && { afterTimeStep }),
  })) as VerifyResult;
  return result.valid ? result.timeStep : undefined;
}

export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODES_ISSUED }, () => {
    const chars = [...randomBytes(12)].map((byte) => BASE32[byte % 32]).join('');
    return `${chars.slice(0, 4)}-${chars.slice(4, 8)}-${chars.slice(8)}`;
  });
}

/** SHA-256 of the code as typed in any case, with or without its dashes: 60 bits need no salt. */
export function hashRecoveryCode(code: string): string {
  return createHash('sha256').update(code.replaceAll('-', '').toLowerCase()).digest('hex');
}
