import { describe, expect, it } from '@jest/globals';
import { JwtService } from '@nestjs/jwt';
import { createSecretKey, randomUUID } from 'node:crypto';
import { signToken } from '../../test/support/auth.js';
import type { AuthConfig } from '../config/auth.config.js';
import { TokenService } from './token.service.js';

const SECRET = 's'.repeat(40);
const cfg = { jwtIssuer: 'iss-test', jwtAudience: 'aud-test' } as AuthConfig;
const sut = new TokenService(new JwtService({ secret: createSecretKey(Buffer.from(SECRET)) }), cfg);
const NOW = new Date('2026-11-22T10:00:00.000Z');
const nowSeconds = NOW.getTime() / 1000;

function claims(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    sub: '42',
    username: 'alice',
    role: 'user',
    jti: randomUUID(),
    iat: nowSeconds - 60,
    exp: nowSeconds + 3540,
    iss: cfg.jwtIssuer,
    aud: cfg.jwtAudience,
    ...overrides,
  };
}

function codeOf(token: string): string {
  const result = sut.verify(token, NOW);
  return result.ok ? 'OK' : result.error.code;
}

describe(TokenService.name, () => {
  it('should verify the tokens it issues', () => {
    const token = sut.issue({ id: 42, username: 'alice', role: 'admin' });
    const result = sut.verify(token);
    expect(result).toEqual({
      ok: true,
      token: { userId: 42, username: 'alice', role: 'admin', jti: expect.any(String) },
    });
  });

  it('should accept a well-formed HS256 token', () => {
    expect(codeOf(signToken(claims(), { secret: SECRET }))).toBe('OK');
  });

  it('should report an expired token with when it expired and the current time', () => {
    const result = sut.verify(
      signToken(claims({ iat: nowSeconds - 3600, exp: nowSeconds }), { secret: SECRET }),
      NOW,
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe('EXPIRED_TOKEN');
    expect(result.error.details).toEqual({
      expired_at: NOW.toISOString(),
      current_time: NOW.toISOString(),
    });
    expect(result.error.headers['WWW-Authenticate']).toContain('error="invalid_token"');
  });

  it.each<[string, string]>([
    ['alg none', signToken(claims(), { alg: 'none' })],
    ['HS512 with the right secret', signToken(claims(), { secret: SECRET, alg: 'HS512' })],
    ['another secret', signToken(claims(), { secret: 'x'.repeat(40) })],
    ['a wrong issuer', signToken(claims({ iss: 'other' }), { secret: SECRET })],
    ['a wrong audience', signToken(claims({ aud: 'other' }), { secret: SECRET })],
    ['no exp', signToken(claims({ exp: undefined }), { secret: SECRET })],
    ['no iat', signToken(claims({ iat: undefined }), { secret: SECRET })],
    ['a day-long lifetime', signToken(claims({ exp: nowSeconds + 86_400 }), { secret: SECRET })],
    ['a non-numeric subject', signToken(claims({ sub: 'alice' }), { secret: SECRET })],
    ['an unknown role', signToken(claims({ role: 'root' }), { secret: SECRET })],
    ['no jti', signToken(claims({ jti: undefined }), { secret: SECRET })],
    ['a token that is not a JWT', 'abc.def'],
  ])('should refuse %s as INVALID_TOKEN', (_case, token) => {
    expect(codeOf(token)).toBe('INVALID_TOKEN');
  });
});
