import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { apiKey, createUser } from '../../support/auth.js';
import { errorBody, expectValidationError } from '../../support/errors.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';

const DAY_MS = 86_400_000;
const KEY_CHALLENGE = 'ApiKey header="X-API-Key"';

describe('API key expiry and rolling (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  const createKey = (headers: Record<string, string>, body: Record<string, unknown>) =>
    t.http
      .post('/v1/api-keys')
      .set(headers)
      .send({ name: 'expiring', mode: 'test', ...body });

  /**
   * The clock moves past the key's end, without waiting for it: its `expires_at` is set a
   * second in the past by the database's clock, which the service compares it with.
   */
  async function keyExpires(id: number): Promise<string> {
    // An UPDATE answers its rows and their count.
    const [[row]] = await t.dataSource.query<[{ expiredAt: string }[], number]>(
      `UPDATE api_keys SET expires_at = date_trunc('milliseconds', now()) - interval '1 second'
        WHERE id = $1
      RETURNING to_char(expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "expiredAt"`,
      [id],
    );
    return row.expiredAt;
  }

  it('should show expiresAt, and refuse the key once it has passed, saying when', async () => {
    const expiresAt = new Date(Date.now() + 30 * DAY_MS).toISOString();
    const created = await createKey(t.user, { expiresAt });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ expiresAt, expiringSoon: false });
    await t.http
      .get('/v1/pets')
      .set(apiKey(created.body.key as string))
      .expect(200);

    const expiredAt = await keyExpires(created.body.id as number);

    const res = await t.http.get('/v1/pets').set(apiKey(created.body.key as string));
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe(KEY_CHALLENGE);
    expect(res.body).toEqual(errorBody('INVALID_API_KEY', { reason: 'expired', expiredAt }));
  });

  it('should leave expiresAt out of a key that never expires', async () => {
    const created = await createKey(t.user, {});
    expect(created.body).not.toHaveProperty('expiresAt');
    expect(created.body.expiringSoon).toBe(false);
  });

  it('should flag a key expiring within 7 days in the list', async () => {
    const owner = await createUser(t);
    await createKey(owner.headers, {
      name: 'later',
      expiresAt: new Date(Date.now() + 8 * DAY_MS).toISOString(),
    });
    await createKey(owner.headers, {
      name: 'soon',
      expiresAt: new Date(Date.now() + 6 * DAY_MS).toISOString(),
    });
    const list = await t.http.get('/v1/api-keys').set(owner.headers).expect(200);
    const flags = Object.fromEntries(
      (list.body.apiKeys as { name: string; expiringSoon: boolean }[]).map((k) => [
        k.name,
        k.expiringSoon,
      ]),
    );
    expect(flags).toEqual({ later: false, soon: true });
  });

  it.each([
    ['in the past', () => new Date(Date.now() - 1000).toISOString()],
    ['more than 366 days ahead', () => new Date(Date.now() + 367 * DAY_MS).toISOString()],
    ['not a timestamp', () => 'next week'],
  ])('should refuse an expiresAt %s with 400 on expiresAt', async (_case, expiresAt) => {
    expectValidationError(await createKey(t.user, { expiresAt: expiresAt() }), ['expiresAt']);
  });

  it('should not count an expired key against API_KEYS_PER_USER', async () => {
    const owner = await createUser(t);
    const ids: number[] = [];
    for (let n = 0; n < 10; n++) {
      ids.push((await createKey(owner.headers, {}).expect(201)).body.id as number);
    }
    expect((await createKey(owner.headers, {})).body.code).toBe('API_KEY_LIMIT_REACHED');

    await keyExpires(ids[0]);

    await createKey(owner.headers, {}).expect(201);
  });

  describe('POST /v1/api-keys/{id}/roll', () => {
    const roll = (headers: Record<string, string>, id: number, body?: Record<string, unknown>) => {
      const request = t.http.post(`/v1/api-keys/${id}/roll`).set(headers);
      return body === undefined ? request : request.send(body);
    };

    it('should answer a new key of the same name, mode and scopes, the old one working a day more', async () => {
      const owner = await createUser(t);
      const old = await createKey(owner.headers, { name: 'deploy', scopes: ['pets:read'] });
      const before = Date.now();

      const res = await roll(owner.headers, old.body.id as number);

      expect(res.status).toBe(201);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toMatchObject({ name: 'deploy', mode: 'test', scopes: ['pets:read'] });
      expect(res.body.id).not.toBe(old.body.id);
      expect(res.body.key).not.toBe(old.body.key);
      expect(res.body).not.toHaveProperty('expiresAt');
      await t.http
        .get('/v1/pets')
        .set(apiKey(res.body.key as string))
        .expect(200);
      await t.http
        .get('/v1/pets')
        .set(apiKey(old.body.key as string))
        .expect(200);
      const list = await t.http.get('/v1/api-keys').set(owner.headers).expect(200);
      const oldNow = (
        list.body.apiKeys as { id: number; expiresAt?: string; expiringSoon: boolean }[]
      ).find((k) => k.id === old.body.id)!;
      const end = Date.parse(oldNow.expiresAt!);
      expect(end).toBeGreaterThanOrEqual(before + 24 * 3600_000 - 1000);
      expect(end).toBeLessThanOrEqual(Date.now() + 24 * 3600_000 + 1000);
      expect(oldNow.expiringSoon).toBe(true);

      // The day passes: the old key stops, the new one goes on.
      await keyExpires(old.body.id as number);
      expect(
        (await t.http.get('/v1/pets').set(apiKey(old.body.key as string))).body.details,
      ).toMatchObject({
        reason: 'expired',
      });
      await t.http
        .get('/v1/pets')
        .set(apiKey(res.body.key as string))
        .expect(200);
    });

    it('should stop the old key at once with expiresInHours 0, even at the key limit', async () => {
      const owner = await createUser(t);
      let last: { id: number; key: string } | undefined;
      for (let n = 0; n < 10; n++) last = (await createKey(owner.headers, {}).expect(201)).body;

      const res = await roll(owner.headers, last!.id, { expiresInHours: 0 });

      expect(res.status).toBe(201);
      const refused = await t.http.get('/v1/pets').set(apiKey(last!.key));
      expect(refused.status).toBe(401);
      expect(refused.body.details.reason).toBe('expired');
      await t.http
        .get('/v1/pets')
        .set(apiKey(res.body.key as string))
        .expect(200);
    });

    it('should give the new key the old one’s lifetime, from now', async () => {
      const expiresAt = new Date(Date.now() + 30 * DAY_MS).toISOString();
      const old = await createKey(t.user, { expiresAt });
      const res = await roll(t.user, old.body.id as number, { expiresInHours: 1 });
      const lifetime =
        Date.parse(res.body.expiresAt as string) - Date.parse(res.body.createdAt as string);
      const oldLifetime = Date.parse(expiresAt) - Date.parse(old.body.createdAt as string);
      expect(Math.abs(lifetime - oldLifetime)).toBeLessThan(5000);
    });

    it('should answer 404 for someone else’s key, and refuse an API key', async () => {
      const old = await createKey(t.admin, {});
      expect((await roll(t.user, old.body.id as number)).body.code).toBe('API_KEY_NOT_FOUND');
      const byKey = await roll(apiKey(old.body.key as string), old.body.id as number);
      expect(byKey.body.code).toBe('INSUFFICIENT_PERMISSIONS');
    });

    it.each([[{ expiresInHours: -1 }], [{ expiresInHours: 169 }], [{ expiresInHours: 1.5 }]])(
      'should refuse %j with 400 on expiresInHours',
      async (body) => {
        const old = await createKey(t.user, {});
        expectValidationError(await roll(t.user, old.body.id as number, body), ['expiresInHours']);
      },
    );
  });
});
