import { normalizeIp } from '@nestjs/throttler';
import type { Request } from 'express';

export type Tier = 'api-key' | 'user' | 'anonymous';
export const WINDOWS = { hour: 3_600_000, minute: 60_000 } as const;
export type WindowName = keyof typeof WINDOWS;
export const WINDOW_NAMES = Object.keys(WINDOWS) as WindowName[];

/**
 * Whose budget a request spends: the API key, the user behind a bearer token, or the
 * client address when the credential is missing or invalid. The address is Express's
 * `req.ip`, which honours X-Forwarded-For only as far as TRUST_PROXY allows.
 */
export function callerOf(request: Request): { tier: Tier; tracker: string } {
  const principal = request.principal;
  if (principal?.kind === 'api-key') {
    return { tier: 'api-key', tracker: `key:${principal.apiKeyId}` };
  }
  if (principal?.kind === 'user') return { tier: 'user', tracker: `user:${principal.userId}` };
  return { tier: 'anonymous', tracker: addressTracker(request) };
}

/**
 * The owner of an API key, whose user budget the key's requests spend as well as the
 * key's own: however many keys a user makes (or revokes and makes again), its traffic
 * stays within one user budget.
 */
export function ownerTrackerOf(request: Request): string | undefined {
  const principal = request.principal;
  return principal?.kind === 'api-key' ? `user:${principal.userId}` : undefined;
}

/** The client address's counters; one IPv6 client usually holds a whole /64, one address. */
export function addressTracker(request: Request): string {
  return `ip:${normalizeIp(request.ip ?? 'unknown', 64)}`;
}

export const counterKey = (window: WindowName, tracker: string) => `${window}:${tracker}`;
