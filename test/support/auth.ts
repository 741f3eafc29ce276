import { createHmac, randomUUID } from 'node:crypto';
import { bearer, type Headers } from './headers.js';
import type { TestApp } from './test-app.js';

// Kept apart so that test-app.ts needs them without importing this file, which needs it.
export { apiKey, bearer, type Headers } from './headers.js';

/** Logs in through the API and returns the token. */
export async function loginAs(t: TestApp, username: string, password: string): Promise<string> {
  const res = await t.http.post('/v1/auth/login').send({ username, password });
  if (res.status !== 200) throw new Error(`login as ${username}: ${res.status} ${res.text}`);
  return res.body.token as string;
}

export interface CreatedUser {
  id: number;
  username: string;
  password: string;
  email: string;
  headers: Headers;
}

let counter = 0;

/** Creates a user through the API as the admin, then logs it in. */
export async function createUser(
  t: TestApp,
  fields: Record<string, unknown> = {},
): Promise<CreatedUser> {
  counter += 1;
  const username = `user${counter}_${randomUUID().slice(0, 8)}`;
  const body = {
    username,
    email: `${username}@example.com`,
    password: 'correct horse battery',
    ...fields,
  };
  const res = await t.http.post('/v1/users').set(t.admin).send(body);
  if (res.status !== 201) throw new Error(`create user: ${res.status} ${res.text}`);
  const created = {
    id: res.body.id as number,
    username: String(body.username),
    password: String(body.password),
    email: String(body.email),
  };
  const active = (fields.userStatus ?? 0) === 0;
  const headers = active ? bearer(await loginAs(t, created.username, created.password)) : {};
  return { ...created, headers };
}

/** The user changes its own password to `password`, with its current one. */
export const changeOwnPassword = (t: TestApp, user: CreatedUser, password: string) =>
  t.http
    .put(`/v1/users/${user.id}`)
    .set(user.headers)
    .send({ password, currentPassword: user.password })
    .expect(200);

/** Creates an API key with the given bearer headers; returns the creation response body. */
export async function createApiKey(
  t: TestApp,
  headers: Headers,
  mode: 'live' | 'test' = 'test',
  name = 'ci',
): Promise<{ id: number; key: string; prefix: string }> {
  const res = await t.http.post('/v1/api-keys').set(headers).send({ name, mode });
  if (res.status !== 201) throw new Error(`create API key: ${res.status} ${res.text}`);
  return res.body as { id: number; key: string; prefix: string };
}

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

export interface SignOptions {
  secret?: string;
  alg?: 'HS256' | 'HS512' | 'none';
  header?: Record<string, unknown>;
}

/**
 * Builds a JWT by hand, so that tests can forge what the service must refuse: other
 * algorithms, `none`, other secrets, missing or past claims.
 */
export function signToken(claims: Record<string, unknown>, options: SignOptions): string {
  const alg = options.alg ?? 'HS256';
  const head = base64url({ alg, typ: 'JWT', ...options.header });
  const body = base64url(claims);
  if (alg === 'none') return `${head}.${body}.`;
  const hmac = createHmac(alg === 'HS256' ? 'sha256' : 'sha512', options.secret ?? '');
  return `${head}.${body}.${hmac.update(`${head}.${body}`).digest('base64url')}`;
}

/** Claims as the service issues them, for a user of this app. */
export function validClaims(
  t: TestApp,
  user: { id: number; username: string; role?: string },
  nowSeconds = Math.floor(Date.now() / 1000),
): Record<string, unknown> {
  return {
    sub: String(user.id),
    username: user.username,
    role: user.role ?? 'user',
    jti: randomUUID(),
    iat: nowSeconds,
    exp: nowSeconds + 3600,
    iss: t.jwt.issuer,
    aud: t.jwt.audience,
  };
}
