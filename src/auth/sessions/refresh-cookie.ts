import type { CookieOptions, Request, Response } from 'express';
import { ApiException } from '../../common/errors/api-exception.js';
import { COOKIE_HEADER, ORIGIN_HEADER, SET_COOKIE_HEADER } from '../../common/http/header-names.js';
import { API_PREFIX } from '../../common/http/route-space.js';

/**
 * The console's refresh token travels in this cookie, never in a body its script could read
 * (docs/identity.md, "The console's refresh cookie").
 */
export const REFRESH_COOKIE_NAME = 'petstore_refresh';

/**
 * One cookie per route that reads it, each scoped to exactly that path, so that no other
 * request (login, the session list, anything under /v1) ever carries the token.
 */
export const REFRESH_COOKIE_PATHS = [
  `/${API_PREFIX}/auth/refresh`,
  `/${API_PREFIX}/auth/logout`,
] as const;

/** Documents the web console's refresh cookie on the routes that set or clear it. */
export const refreshCookieHeader = (action: 'sets' | 'replaces' | 'clears') => ({
  [SET_COOKIE_HEADER]: {
    description:
      `Only for the web console’s refresh cookie: ${action} \`${REFRESH_COOKIE_NAME}\` ` +
      `(HttpOnly; Secure; SameSite=Strict), once for Path=${REFRESH_COOKIE_PATHS.join(' and once for Path=')}`,
    required: false,
    schema: { type: 'string', maxLength: 512, pattern: `^${REFRESH_COOKIE_NAME}=` },
  },
});

const ATTRIBUTES: CookieOptions = { httpOnly: true, secure: true, sameSite: 'strict' };

/** The refresh token in the request's cookie, if any. */
export function refreshCookieOf(request: Request): string | undefined {
  const header = request.get(COOKIE_HEADER);
  if (!header) return undefined;
  for (const pair of header.split(';')) {
    const at = pair.indexOf('=');
    if (at > 0 && pair.slice(0, at).trim() === REFRESH_COOKIE_NAME) {
      const value = pair.slice(at + 1).trim();
      return value === '' ? undefined : value;
    }
  }
  return undefined;
}

export function setRefreshCookie(response: Response, token: string, ttlSeconds: number): void {
  for (const path of REFRESH_COOKIE_PATHS) {
    response.cookie(REFRESH_COOKIE_NAME, token, {
      ...ATTRIBUTES,
      path,
      maxAge: ttlSeconds * 1000,
    });
  }
}

/** A login's answer with its refresh token moved into the cookie, out of script's reach. */
export function intoRefreshCookie<T extends { refreshToken?: string; refreshExpiresIn: number }>(
  response: Response,
  answer: T,
): Omit<T, 'refreshToken'> {
  const { refreshToken, ...rest } = answer;
  if (refreshToken !== undefined) setRefreshCookie(response, refreshToken, rest.refreshExpiresIn);
  return rest;
}

export function clearRefreshCookie(response: Response): void {
  for (const path of REFRESH_COOKIE_PATHS) {
    response.clearCookie(REFRESH_COOKIE_NAME, { ...ATTRIBUTES, path });
  }
}

/**
 * A request that reads or sets the cookie must come from the service's own pages: its
 * `Origin` must be PUBLIC_BASE_URL's origin (or, without it, the origin the request was sent
 * to). SameSite=Strict already keeps other sites' requests from carrying the cookie; this
 * also refuses sibling origins of the same site and browsers without SameSite.
 */
export function assertOwnOrigin(request: Request, publicBaseUrl: string | undefined): void {
  const origin = request.get(ORIGIN_HEADER);
  const own = publicBaseUrl
    ? new URL(publicBaseUrl).origin
    : `${request.protocol}://${request.get('host') ?? ''}`;
  if (origin !== own) {
    throw new ApiException(
      'ORIGIN_NOT_ALLOWED',
      origin
        ? 'The refresh cookie is accepted only from the console of this service'
        : 'A request using the refresh cookie must carry an Origin header',
    );
  }
}
