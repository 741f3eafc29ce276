import { createHmac, hkdfSync, timingSafeEqual, type KeyObject } from 'node:crypto';
import type { Request, Response } from 'express';
import { COOKIE_HEADER } from '../../common/http/header-names.js';
import { API_PREFIX } from '../../common/http/route-space.js';

/** What the callback checks the provider's answer against, kept in the browser that asked. */
export interface SsoState {
  state: string;
  nonce: string;
  codeVerifier: string;
}

export const SSO_COOKIE_NAME = 'petstore_sso';
export const SSO_CALLBACK_PATH = `/${API_PREFIX}/auth/sso/callback`;

/** How long a sign-in at the provider may take. */
export const SSO_STATE_TTL_SECONDS = 600;

/**
 * The state, nonce and PKCE verifier of one sign-in travel in an HttpOnly cookie scoped to
 * the callback and signed with a key of their own (derived from the JWT secret, as the page
 * cursors' is), so the callback accepts only what this service gave this browser. SameSite
 * is Lax, not Strict: the callback is a navigation from the provider's site.
 */
export class SsoStateCookie {
  private readonly key: Buffer;

  constructor(jwtKey: KeyObject) {
    this.key = Buffer.from(hkdfSync('sha256', jwtKey, '', 'petstore sso state', 32));
  }

  set(response: Response, state: SsoState, now = Date.now()): void {
    const payload = Buffer.from(
      JSON.stringify({ ...state, expiresAt: now + SSO_STATE_TTL_SECONDS * 1000 }),
    ).toString('base64url');
    response.cookie(SSO_COOKIE_NAME, `${payload}.${this.signature(payload)}`, {
      httpOnly: true,
      secure: true,
      sameSite: 'lax',
      path: SSO_CALLBACK_PATH,
      maxAge: SSO_STATE_TTL_SECONDS * 1000,
    });
  }

  /** The request's state, if this service signed it and it has not expired. */
  read(request: Request, now = Date.now()): SsoState | undefined {
    const value = cookieOf(request);
    const at = value?.lastIndexOf('.') ?? -1;
    if (value === undefined || at < 0) return undefined;
    const payload = value.slice(0, at);
    const given = Buffer.from(value.slice(at + 1));
    const expected = Buffer.from(this.signature(payload));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    const { state, nonce, codeVerifier, expiresAt } = JSON.parse(
      Buffer.from(payload, 'base64url').toString(),
    ) as SsoState & { expiresAt: number };
    return expiresAt > now ? { state, nonce, codeVerifier } : undefined;
  }

  clear(response: Response): void {
    response.clearCookie(SSO_COOKIE_NAME, {
      httpOnly: true,
      secure: true,
      sameSite: 'lax',
      path: SSO_CALLBACK_PATH,
    });
  }

  private signature(payload: string): string {
    return createHmac('sha256', this.key).update(payload).digest('base64url');
  }
}

function cookieOf(request: Request): string | undefined {
  for (const pair of request.get(COOKIE_HEADER)?.split(';') ?? []) {
    const at = pair.indexOf('=');
    if (at > 0 && pair.slice(0, at).trim() === SSO_COOKIE_NAME) return pair.slice(at + 1).trim();
  }
  return undefined;
}
