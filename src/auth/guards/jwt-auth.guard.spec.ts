import { beforeEach, describe, expect, it, jest } from '@jest/globals';
import type { ExecutionContext } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { createSecretKey, randomUUID } from 'node:crypto';
import { signToken } from '../../../test/support/auth.js';
import { ApiException } from '../../common/errors/api-exception.js';
import type { AuthConfig } from '../../config/auth.config.js';
import { UserStatus } from '../../users/user-status.js';
import type { AccessState } from '../../users/user-lookup.service.js';
import type { AccessStatesService } from '../access-states.service.js';
import type { MfaService } from '../mfa/mfa.service.js';
import type { SessionsService } from '../sessions/sessions.service.js';
import { JwtStrategy } from '../strategies/jwt.strategy.js';
import { TokenService } from '../token.service.js';
import { JwtAuthGuard } from './jwt-auth.guard.js';

const SECRET = 's'.repeat(40);
const KEY = createSecretKey(Buffer.from(SECRET));
const cfg = { jwtIssuer: 'iss-test', jwtAudience: 'aud-test' } as AuthConfig;
const tokens = new TokenService(new JwtService({ secret: KEY }), cfg);
const nowSeconds = () => Math.floor(Date.now() / 1000);

let accessState: AccessState | null;
const accessStates = {
  of: jest.fn(() => Promise.resolve(accessState)),
} as unknown as AccessStatesService;
let sessionLive: boolean;
const isLive = jest.fn((_sessionId: number, _userId: number) => Promise.resolve(sessionLive));
const sessions = { isLive } as unknown as SessionsService;
// Registers itself with passport as 'jwt', as Nest does when it instantiates the provider.
// No role requires a second factor here (mfa.e2e-spec.ts covers those that do).
const mfa = { requiredFor: () => false } as unknown as MfaService;
new JwtStrategy(cfg, KEY, accessStates, sessions, mfa);
const sut = new JwtAuthGuard({ session: false, property: 'principal' });

function claims(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    sub: '42',
    username: 'alice',
    role: 'user',
    jti: randomUUID(),
    iat: nowSeconds() - 60,
    exp: nowSeconds() + 3540,
    iss: cfg.jwtIssuer,
    aud: cfg.jwtAudience,
    ...overrides,
  };
}

/** The principal passport put on the request, or the API error the guard threw. */
async function authenticate(authorization: string): Promise<unknown> {
  const request: Record<string, unknown> = { headers: { authorization } };
  const context = {
    switchToHttp: () => ({ getRequest: () => request, getResponse: () => ({}) }),
  } as unknown as ExecutionContext;
  try {
    await sut.canActivate(context);
    return request.principal;
  } catch (error) {
    if (error instanceof ApiException) return error;
    throw error;
  }
}

async function codeOf(token: string): Promise<string> {
  const result = await authenticate(`Bearer ${token}`);
  return result instanceof ApiException ? result.code : 'OK';
}

describe(JwtAuthGuard.name, () => {
  beforeEach(() => {
    accessState = { userStatus: UserStatus.Active, role: 'user', tokensValidAfter: null };
    sessionLive = true;
  });

  it('should accept the tokens TokenService issues, with the role the account has now', async () => {
    accessState = { userStatus: UserStatus.Active, role: 'admin', tokensValidAfter: null };
    const token = tokens.issue(
      { id: 42, username: 'alice', role: 'user', tokensValidAfter: null },
      7,
    );
    expect(await authenticate(`Bearer ${token}`)).toEqual({
      kind: 'user',
      userId: 42,
      role: 'admin',
      sessionId: 7,
    });
    expect(isLive).toHaveBeenCalledWith(7, 42);
  });

  it('should refuse a token of a revoked session as INVALID_TOKEN', async () => {
    sessionLive = false;
    expect(await codeOf(signToken(claims({ sid: '7' }), { secret: SECRET }))).toBe('INVALID_TOKEN');
  });

  it('should accept a token without a session, whose hour was issued before sessions existed', async () => {
    sessionLive = false;
    expect(await authenticate(`Bearer ${signToken(claims(), { secret: SECRET })}`)).toEqual({
      kind: 'user',
      userId: 42,
      role: 'user',
      sessionId: undefined,
    });
  });

  it('should accept a well-formed HS256 token', async () => {
    expect(await codeOf(signToken(claims(), { secret: SECRET }))).toBe('OK');
  });

  it('should report an expired token with when it expired and the current time', async () => {
    const exp = nowSeconds() - 5;
    const before = Date.now();
    const result = await authenticate(
      `Bearer ${signToken(claims({ iat: exp - 3600, exp }), { secret: SECRET })}`,
    );
    expect(result).toBeInstanceOf(ApiException);
    const error = result as ApiException;
    expect(error.code).toBe('EXPIRED_TOKEN');
    expect(error.details?.expired_at).toBe(new Date(exp * 1000).toISOString());
    const currentTime = Date.parse(error.details?.current_time as string);
    expect(currentTime).toBeGreaterThanOrEqual(before);
    expect(error.headers['WWW-Authenticate']).toContain('error="invalid_token"');
  });

  it('should not echo the configured issuer or audience when they do not match', async () => {
    for (const token of [
      signToken(claims({ iss: 'other' }), { secret: SECRET }),
      signToken(claims({ aud: 'other' }), { secret: SECRET }),
    ]) {
      const error = (await authenticate(`Bearer ${token}`)) as ApiException;
      expect(error.code).toBe('INVALID_TOKEN');
      expect(error.message).not.toContain(cfg.jwtIssuer);
      expect(error.message).not.toContain(cfg.jwtAudience);
    }
  });

  it('should refuse a header without the Bearer scheme as INVALID_TOKEN', async () => {
    const result = (await authenticate(
      `Basic ${signToken(claims(), { secret: SECRET })}`,
    )) as ApiException;
    expect(result.code).toBe('INVALID_TOKEN');
    expect(result.message).toContain('Bearer');
  });

  it.each<[string, UserStatus]>([
    ['disabled', UserStatus.Disabled],
    ['pending', UserStatus.Pending],
  ])('should refuse the token of a %s account as INVALID_TOKEN', async (_case, userStatus) => {
    accessState = { userStatus, role: 'user', tokensValidAfter: null };
    expect(await codeOf(signToken(claims(), { secret: SECRET }))).toBe('INVALID_TOKEN');
  });

  describe('with a cut-off (password changed or account disabled)', () => {
    // A cut-off 400 ms into a second: a token of that second may have been issued before it.
    const cutOffSecond = nowSeconds() - 10;
    beforeEach(() => {
      accessState = {
        userStatus: UserStatus.Active,
        role: 'user',
        tokensValidAfter: new Date(cutOffSecond * 1000 + 400),
      };
    });

    it.each([
      ['a second before', -1, 'INVALID_TOKEN'],
      ['in the same second', 0, 'INVALID_TOKEN'],
      ['a second after', 1, 'OK'],
    ])('should judge a token issued %s', async (_case, offset, code) => {
      const token = signToken(claims({ iat: cutOffSecond + offset }), { secret: SECRET });
      expect(await codeOf(token)).toBe(code);
    });

    it('should accept a token issued in the second of the cut-off by TokenService', async () => {
      const justNow = new Date();
      accessState = { userStatus: UserStatus.Active, role: 'user', tokensValidAfter: justNow };
      const token = tokens.issue(
        { id: 42, username: 'alice', role: 'user', tokensValidAfter: justNow },
        7,
      );
      expect(await codeOf(token)).toBe('OK');
    });
  });

  it('should refuse the token of a deleted account as INVALID_TOKEN', async () => {
    accessState = null;
    expect(await codeOf(signToken(claims(), { secret: SECRET }))).toBe('INVALID_TOKEN');
  });

  it.each<[string, () => string]>([
    ['alg none', () => signToken(claims(), { alg: 'none' })],
    ['HS512 with the right secret', () => signToken(claims(), { secret: SECRET, alg: 'HS512' })],
    ['another secret', () => signToken(claims(), { secret: 'x'.repeat(40) })],
    ['a wrong issuer', () => signToken(claims({ iss: 'other' }), { secret: SECRET })],
    ['a wrong audience', () => signToken(claims({ aud: 'other' }), { secret: SECRET })],
    ['no exp', () => signToken(claims({ exp: undefined }), { secret: SECRET })],
    ['no iat', () => signToken(claims({ iat: undefined }), { secret: SECRET })],
    [
      'a day-long lifetime',
      () => signToken(claims({ exp: nowSeconds() + 86_400 }), { secret: SECRET }),
    ],
    ['a non-numeric subject', () => signToken(claims({ sub: 'alice' }), { secret: SECRET })],
    ['an unknown role', () => signToken(claims({ role: 'root' }), { secret: SECRET })],
    ['a non-numeric session', () => signToken(claims({ sid: 7 }), { secret: SECRET })],
    ['no jti', () => signToken(claims({ jti: undefined }), { secret: SECRET })],
    ['a token that is not a JWT', () => 'abc.def'],
  ])('should refuse %s as INVALID_TOKEN', async (_case, token) => {
    expect(await codeOf(token())).toBe('INVALID_TOKEN');
  });
});
