import type { ExecutionContext } from '@nestjs/common';
import type { Reflector } from '@nestjs/core';
import { normalizeIp } from '@nestjs/throttler';
// Not re-exported by the package's index: the metadata key @SkipThrottle() writes.
import { THROTTLER_SKIP } from '@nestjs/throttler/dist/throttler.constants.js';
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

/** The client address's counters; one IPv6 client usually holds a whole /64, one address. */
export function addressTracker(request: Request): string {
  return `ip:${normalizeIp(request.ip ?? 'unknown', 64)}`;
}

/** The client address's refused credentials, which bound the look-ups it can cause. */
export const refusedCredentialsTracker = (request: Request) => `refused:${addressTracker(request)}`;

/** The client address's reads of GET /rate-limit, which no caller's budget counts. */
export const budgetReadsTracker = (request: Request) => `reads:${addressTracker(request)}`;

export const counterKey = (window: WindowName, tracker: string) => `${window}:${tracker}`;

/**
 * A route marked `@SkipThrottle()` (GET /rate-limit): a valid credential's requests spend
 * no caller's budget there, only the address's budget of such reads.
 */
export function isUncountedRoute(reflector: Reflector, context: ExecutionContext): boolean {
  const targets = [context.getHandler(), context.getClass()];
  return (
    reflector.getAllAndOverride<boolean | undefined>(`${THROTTLER_SKIP}default`, targets) === true
  );
}
