import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { Response } from 'supertest';
import { AuditEventsService } from '../../../src/audit/audit-events.service.js';
import { createApiKey } from '../../support/auth.js';
import { expectError, expectValidationError } from '../../support/errors.js';
import { refuseInserts, REFUSED } from '../../support/refused-inserts.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';
import { expectInternalError } from '../../support/test-logs.js';

const USER_AGENT = 'audit-e2e/1.0';
const WEBHOOK_URL = 'https://8.8.8.8/hooks/pets';
const OTHER_WEBHOOK_URL = 'http://1.1.1.1:8080/receiver';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const LOOPBACK = /^(::ffff:)?127\.0\.0\.1$|^::1$/;

interface AuditEntry {
  id: number;
  action: string;
  [field: string]: unknown;
}

describe('Audit log (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    // A subscription makes a pet's deletion write an outbox row (docs/events.md, "Interest").
    t = await createTestApp({ METRICS_ENABLED: 'true', WEBHOOKS_ALLOW_PRIVATE_ADDRESSES: 'true' });
  });
  afterAll(() => t.close());
  beforeEach(async () => {
    await t.dataSource.query('TRUNCATE audit_events');
  });

  /** Every entry, newest first (the tests make fewer than a page). */
  const entries = async (query = ''): Promise<AuditEntry[]> => {
    const res = await t.http.get(`/v1/audit-events?limit=100${query}`).set(t.admin).expect(200);
    return res.body.auditEvents as AuditEntry[];
  };
  /** What the admin's bearer token makes an entry say about who acted, and from where. */
  const byAdmin = (res: Response) => ({
    actor: { userId: t.adminUser.id, username: t.adminUser.username, credential: 'jwt' },
    ip: expect.stringMatching(LOOPBACK),
    userAgent: USER_AGENT,
    requestId: res.headers['x-request-id'],
  });
  const entry = (fields: Record<string, unknown>) => ({
    id: expect.any(Number),
    occurredAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
    outcome: 'success',
    ...fields,
  });
  /**
   * A webhook that wants pet.deleted, so that a deletion writes an outbox row; nothing
   * listens at its address. Resolves to its removal.
   */
  const subscribeToDeletions = async () => {
    const res = await t.http
      .post('/v1/webhooks')
      .set(t.admin)
      .send({ url: 'http://127.0.0.1:9/audit', events: ['pet.deleted'] })
      .expect(201);
    return async () => {
      await t.http.delete(`/v1/webhooks/${res.body.id}`).set(t.admin).expect(200);
    };
  };
  const createCategory = (name: string, headers = t.admin) =>
    t.http
      .post('/v1/categories')
      .set(headers)
      .set('User-Agent', USER_AGENT)
      .send({ name, description: 'four legs' });

  describe('categories', () => {
    it('should record a creation, an update and a deletion, one entry each, with the admin, the target and the changes', async () => {
      const created = await createCategory('Dogs').expect(201);
      const id = created.body.id as number;
      const updated = await t.http
        .put(`/v1/categories/${id}`)
        .set(t.admin)
        .set('User-Agent', USER_AGENT)
        .send({ name: 'Hounds', description: 'four legs' })
        .expect(200);
      const deleted = await t.http
        .delete(`/v1/categories/${id}`)
        .set(t.admin)
        .set('User-Agent', USER_AGENT)
        .expect(200);

      const target = { type: 'category', id };
      expect(await entries()).toEqual([
        entry({
          action: 'category.deleted',
          target,
          changes: {
            name: { from: 'Hounds', to: null },
            description: { from: 'four legs', to: null },
          },
          ...byAdmin(deleted),
        }),
        entry({
          action: 'category.updated',
          target,
          changes: { name: { from: 'Dogs', to: 'Hounds' } },
          ...byAdmin(updated),
        }),
        entry({
          action: 'category.created',
          target,
          changes: {
            name: { from: null, to: 'Dogs' },
            description: { from: null, to: 'four legs' },
          },
          ...byAdmin(created),
        }),
      ]);
    });

    it("should name an API key's prefix and credential when the admin acts with one", async () => {
      const key = await createApiKey(t, t.admin, 'live');
      // Only the category's entry: the key's creation is recorded too.
      await t.dataSource.query('TRUNCATE audit_events');
      const created = await createCategory('Cats', { 'X-API-Key': key.key }).expect(201);

      expect(await entries()).toEqual([
        entry({
          action: 'category.created',
          target: { type: 'category', id: created.body.id },
          changes: {
            name: { from: null, to: 'Cats' },
            description: { from: null, to: 'four legs' },
          },
          actor: {
            userId: t.adminUser.id,
            username: t.adminUser.username,
            credential: 'api-key',
            apiKeyPrefix: key.prefix,
          },
          ip: expect.stringMatching(LOOPBACK),
          userAgent: USER_AGENT,
          requestId: created.headers['x-request-id'],
        }),
      ]);
    });

    it('should record a User-Agent cut to the 256 characters its column holds', async () => {
      await t.http
        .post('/v1/categories')
        .set(t.admin)
        .set('User-Agent', 'x'.repeat(1000))
        .send({ name: 'Reptiles' })
        .expect(201);

      expect(await entries()).toEqual([
        expect.objectContaining({ action: 'category.created', userAgent: 'x'.repeat(256) }),
      ]);
    });

    it('should record nothing for a refused change (409, 404, 412)', async () => {
      await createCategory('Birds').expect(201);
      await t.dataSource.query('TRUNCATE audit_events');

      await createCategory('birds').expect(409);
      await t.http.put('/v1/categories/999999').set(t.admin).send({ name: 'x' }).expect(404);
      await t.http.delete('/v1/categories/999999').set(t.admin).expect(404);

      expect(await entries()).toEqual([]);
    });

    it('should fail the change when its entry cannot be written: no category, no entry', async () => {
      const acceptEntries = await refuseInserts(t.dataSource, 'audit_events');
      try {
        await expectInternalError(await createCategory('Fish'), REFUSED);
      } finally {
        await acceptEntries();
      }

      const categories = await t.http.get('/v1/categories').set(t.admin).expect(200);
      expect(categories.body.categories).not.toContainEqual(
        expect.objectContaining({ name: 'Fish' }),
      );
      expect(await entries()).toEqual([]);
    });
  });

  describe('webhooks', () => {
    it('should record create, update, rotate and delete with their changes, and never a secret', async () => {
      const send = (req: ReturnType<typeof t.http.post>) =>
        req.set(t.admin).set('User-Agent', USER_AGENT);
      const created = await send(t.http.post('/v1/webhooks'))
        .send({ url: WEBHOOK_URL, events: ['pet.created'] })
        .expect(201);
      const id = created.body.id as number;
      const updated = await send(t.http.put(`/v1/webhooks/${id}`))
        .send({ url: OTHER_WEBHOOK_URL, events: ['pet.created', 'pet.deleted'], enabled: false })
        .expect(200);
      const rotated = await send(t.http.post(`/v1/webhooks/${id}/rotate-secret`)).expect(200);
      const deleted = await send(t.http.delete(`/v1/webhooks/${id}`)).expect(200);

      const target = { type: 'webhook', id };
      expect(await entries()).toEqual([
        entry({
          action: 'webhook.deleted',
          target,
          changes: {
            url: { from: OTHER_WEBHOOK_URL, to: null },
            events: { from: ['pet.created', 'pet.deleted'], to: null },
            enabled: { from: false, to: null },
          },
          ...byAdmin(deleted),
        }),
        entry({
          action: 'webhook.secret_rotated',
          target,
          changes: { secret: { from: '[changed]', to: '[changed]' } },
          ...byAdmin(rotated),
        }),
        entry({
          action: 'webhook.updated',
          target,
          changes: {
            url: { from: WEBHOOK_URL, to: OTHER_WEBHOOK_URL },
            events: { from: ['pet.created'], to: ['pet.created', 'pet.deleted'] },
            enabled: { from: true, to: false },
          },
          ...byAdmin(updated),
        }),
        entry({
          action: 'webhook.created',
          target,
          changes: {
            url: { from: null, to: WEBHOOK_URL },
            events: { from: null, to: ['pet.created'] },
            enabled: { from: null, to: true },
            secret: { from: null, to: '[changed]' },
          },
          ...byAdmin(created),
        }),
      ]);
      const stored = JSON.stringify(
        await t.dataSource.query('SELECT to_jsonb(a) AS entry FROM audit_events a'),
      );
      for (const secret of [created.body.secret as string, rotated.body.secret as string]) {
        expect(stored).not.toContain(secret);
        expect(stored).not.toContain(secret.slice('whsec_'.length));
      }
    });
  });

  it('should keep a webhook URL without its query string or fragment', async () => {
    const created = await t.http
      .post('/v1/webhooks')
      .set(t.admin)
      .send({ url: `${WEBHOOK_URL}?token=receiver-secret#part`, events: ['pet.created'] })
      .expect(201);
    await t.http
      .put(`/v1/webhooks/${created.body.id}`)
      .set(t.admin)
      .send({ url: `${OTHER_WEBHOOK_URL}?sig=other-secret` })
      .expect(200);
    const [updated, made] = await entries();
    expect(made.changes).toMatchObject({ url: { from: null, to: WEBHOOK_URL } });
    expect(updated.changes).toMatchObject({ url: { from: WEBHOOK_URL, to: OTHER_WEBHOOK_URL } });
    const stored = JSON.stringify(await t.dataSource.query('SELECT changes FROM audit_events'));
    expect(stored).not.toMatch(/receiver-secret|other-secret|part/);
  });

  it('should record a webhook URL whose query string alone changed, without either query', async () => {
    const created = await t.http
      .post('/v1/webhooks')
      .set(t.admin)
      .send({ url: `${WEBHOOK_URL}?token=first-secret`, events: ['pet.created'] })
      .expect(201);
    for (const url of [
      `${WEBHOOK_URL}?token=second-secret`,
      `${WEBHOOK_URL}?token=second-secret`,
    ]) {
      await t.http.put(`/v1/webhooks/${created.body.id}`).set(t.admin).send({ url }).expect(200);
    }

    const [unchanged, changed] = await entries();
    expect(changed.changes).toEqual({ url: { from: WEBHOOK_URL, to: WEBHOOK_URL } });
    expect(unchanged).toMatchObject({ action: 'webhook.updated' });
    expect(unchanged).not.toHaveProperty('changes');
    const stored = JSON.stringify(await t.dataSource.query('SELECT changes FROM audit_events'));
    expect(stored).not.toMatch(/first-secret|second-secret/);
  });

  describe('request ids', () => {
    it("should record the service's own request id, and a caller's X-Request-Id beside it", async () => {
      const chosen = await createCategory('Traced by caller')
        .set('X-Request-Id', 'caller-chosen.1')
        .expect(201);
      expect(chosen.headers['x-request-id']).toBe('caller-chosen.1');
      const plain = await createCategory('Traced by service').expect(201);
      const [second, first] = await entries();
      expect(first).toMatchObject({
        requestId: expect.stringMatching(UUID),
        clientRequestId: 'caller-chosen.1',
      });
      expect(second.requestId).toBe(plain.headers['x-request-id']);
      expect(second).not.toHaveProperty('clientRequestId');
      // A caller repeating another request's id does not make its entries that request's.
      await createCategory('Traced again')
        .set('X-Request-Id', plain.headers['x-request-id'])
        .expect(201);
      const [third] = await entries();
      expect(third.requestId).not.toBe(plain.headers['x-request-id']);
      expect(third.clientRequestId).toBe(plain.headers['x-request-id']);
    });
  });

  describe('pets', () => {
    it('should record a deletion with the user, the pet and its fields as they were', async () => {
      const category = await createCategory('Rabbits').expect(201);
      const pet = await t.http
        .post('/v1/pets')
        .set(t.user)
        .send({ name: 'Bun', categoryId: category.body.id, status: 'available', tags: ['soft'] })
        .expect(201);
      await t.dataSource.query('TRUNCATE audit_events');

      const deleted = await t.http
        .delete(`/v1/pets/${pet.body.id}`)
        .set(t.user)
        .set('User-Agent', USER_AGENT)
        .expect(200);

      expect(await entries()).toEqual([
        entry({
          action: 'pet.deleted',
          target: { type: 'pet', id: pet.body.id },
          changes: {
            name: { from: 'Bun', to: null },
            status: { from: 'available', to: null },
            categoryId: { from: category.body.id, to: null },
            tags: { from: ['soft'], to: null },
            photoUrls: { from: [], to: null },
          },
          actor: { userId: t.plainUser.id, username: t.plainUser.username, credential: 'jwt' },
          ip: expect.stringMatching(LOOPBACK),
          userAgent: USER_AGENT,
          requestId: deleted.headers['x-request-id'],
        }),
      ]);
    });

    it('should leave no entry when the deletion rolls back after its event (the outbox refused)', async () => {
      const category = await createCategory('Ferrets').expect(201);
      const pet = await t.http
        .post('/v1/pets')
        .set(t.user)
        .send({ name: 'Slinky', categoryId: category.body.id, status: 'available' })
        .expect(201);
      const unsubscribe = await subscribeToDeletions();
      await t.dataSource.query('TRUNCATE audit_events');

      const acceptMessages = await refuseInserts(t.dataSource, 'outbox_messages');
      try {
        await expectInternalError(
          await t.http.delete(`/v1/pets/${pet.body.id}`).set(t.user),
          REFUSED,
        );
      } finally {
        await acceptMessages();
      }

      await t.http.get(`/v1/pets/${pet.body.id}`).set(t.user).expect(200);
      expect(await entries()).toEqual([]);
      await unsubscribe();
    });
  });

  describe('reading', () => {
    it('should refuse a non-admin on every audit and stats route (403)', async () => {
      for (const path of ['/v1/audit-events', '/v1/audit-events/export', '/v1/stats/activity']) {
        expectError(await t.http.get(path).set(t.user), 403, 'INSUFFICIENT_PERMISSIONS');
        expectError(await t.http.get(path), 401, 'AUTHENTICATION_REQUIRED');
      }
    });

    it('should filter by action, actor, target, since and until, each and together', async () => {
      const other = await createApiKey(t, t.user, 'test');
      await t.dataSource.query('TRUNCATE audit_events');
      const dogs = await createCategory('Filter dogs').expect(201);
      await createCategory('Filter cats').expect(201);
      const category = dogs.body.id as number;
      await t.http.put(`/v1/categories/${category}`).set(t.admin).send({ name: 'Filter hounds' });
      const pet = await t.http
        .post('/v1/pets')
        .set({ 'X-API-Key': other.key })
        .send({ name: 'Rex', categoryId: category, status: 'available' })
        .expect(201);
      await t.http.delete(`/v1/pets/${pet.body.id}`).set({ 'X-API-Key': other.key }).expect(200);
      const all = await entries();
      const actions = (list: AuditEntry[]) => list.map((e) => e.action);
      expect(actions(all)).toEqual([
        'pet.deleted',
        'category.updated',
        'category.created',
        'category.created',
      ]);

      expect(actions(await entries('&action=category.created'))).toEqual([
        'category.created',
        'category.created',
      ]);
      expect(actions(await entries(`&actorId=${t.plainUser.id}`))).toEqual(['pet.deleted']);
      expect(actions(await entries(`&actorId=${t.adminUser.id}&targetType=category`))).toEqual([
        'category.updated',
        'category.created',
        'category.created',
      ]);
      expect(actions(await entries(`&targetType=category&targetId=${category}`))).toEqual([
        'category.updated',
        'category.created',
      ]);
      expect(actions(await entries(`&targetId=${pet.body.id}&targetType=pet`))).toEqual([
        'pet.deleted',
      ]);

      // Entries of known times: since is inclusive, until exclusive.
      const at = (id: number, time: string) =>
        t.dataSource.query('UPDATE audit_events SET occurred_at = $2 WHERE id = $1', [id, time]);
      const [newest, second, third, oldest] = all.map((e) => e.id);
      await at(oldest, '2026-01-01T00:00:00.000Z');
      await at(third, '2026-01-02T00:00:00.000Z');
      await at(second, '2026-01-03T00:00:00.000Z');
      await at(newest, '2026-01-04T00:00:00.000Z');
      const ids = (list: AuditEntry[]) => list.map((e) => e.id);
      expect(ids(await entries('&since=2026-01-02T00:00:00.000Z'))).toEqual([
        newest,
        second,
        third,
      ]);
      expect(ids(await entries('&until=2026-01-03T00:00:00.000Z'))).toEqual([third, oldest]);
      expect(
        ids(
          await entries(
            '&since=2026-01-02T00:00:00.000Z&until=2026-01-04T00:00:00.000Z&action=category.created',
          ),
        ),
      ).toEqual([third]);
      expect(ids(await entries('&since=2026-01-02T01:00:00%2B01:00'))).toEqual([
        newest,
        second,
        third,
      ]);
    });

    it('should page newest first by cursor, 50 by default, until the last page has no cursor', async () => {
      await t.dataSource.query(
        `INSERT INTO audit_events (action, outcome, actor_credential, target_type, target_id)
         SELECT 'category.created', 'success', 'jwt', 'category', n FROM generate_series(1, 120) n`,
      );

      const first = await t.http.get('/v1/audit-events').set(t.admin).expect(200);
      expect(first.body.auditEvents).toHaveLength(50);
      expect(first.body.pagination).toEqual({ limit: 50, nextCursor: expect.any(String) });

      const seen: unknown[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const res = await t.http
          .get('/v1/audit-events')
          .query({ limit: 45, ...(cursor ? { cursor } : {}) })
          .set(t.admin)
          .expect(200);
        seen.push(...(res.body.auditEvents as AuditEntry[]).map((e) => e.target));
        cursor = res.body.pagination.nextCursor;
        pages += 1;
      } while (cursor);

      expect(pages).toBe(3);
      expect(seen).toEqual(
        Array.from({ length: 120 }, (_, i) => ({ type: 'category', id: 120 - i })),
      );

      const exact = await t.http.get('/v1/audit-events?limit=100').set(t.admin).expect(200);
      const rest = await t.http
        .get('/v1/audit-events')
        .query({ limit: 20, cursor: exact.body.pagination.nextCursor })
        .set(t.admin)
        .expect(200);
      expect(rest.body.auditEvents).toHaveLength(20);
      expect(rest.body.pagination).toEqual({ limit: 20 });
    });

    it('should answer 400 naming each bad parameter', async () => {
      const bad = async (query: string, fields: string[]) =>
        expectValidationError(await t.http.get(`/v1/audit-events?${query}`).set(t.admin), fields);

      await bad('limit=0', ['limit']);
      await bad('limit=101', ['limit']);
      await bad('limit=ten', ['limit']);
      await bad('action=pet.created', ['action']);
      await bad('actorId=0', ['actorId']);
      await bad('actorId=x', ['actorId']);
      await bad('targetType=planet', ['targetType']);
      await bad('targetId=-3', ['targetId']);
      await bad('since=yesterday', ['since']);
      await bad('until=2026-01-01', ['until']);
      await bad('since=2026-01-02T00:00:00Z&until=2026-01-01T00:00:00Z', ['until']);
      await bad('cursor=bm90LWEtY3Vyc29y', ['cursor']);
      await bad('cursor=***', ['cursor']);
      await bad('offset=10', ['offset']);
      await bad('limit=0&action=nope&since=never', ['limit', 'action', 'since']);
      expectValidationError(await t.http.get('/v1/audit-events/export?until=soon').set(t.admin), [
        'until',
      ]);
      expectValidationError(
        await t.http.get('/v1/audit-events/export?action=category.created').set(t.admin),
        ['action'],
      );
    });
  });

  describe('export', () => {
    it('should stream the range as NDJSON, oldest first, each line as the list shows it', async () => {
      await createCategory('Export one').expect(201);
      await createCategory('Export two').expect(201);
      const listed = await entries();
      const [newest, oldest] = listed;
      await t.dataSource.query(
        `UPDATE audit_events SET occurred_at = '2026-02-01T00:00:00Z' WHERE id = $1`,
        [oldest.id],
      );

      const res = await t.http.get('/v1/audit-events/export').set(t.admin).expect(200);
      expect(res.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
      const lines = res.text.split('\n');
      expect(lines.at(-1)).toBe('');
      expect(lines.slice(0, -1).map((line) => JSON.parse(line) as unknown)).toEqual([
        { ...oldest, occurredAt: '2026-02-01T00:00:00.000Z' },
        newest,
      ]);

      const since = await t.http
        .get('/v1/audit-events/export?since=2026-02-01T00:00:00.001Z')
        .set(t.admin)
        .expect(200);
      expect(since.text).toBe(`${JSON.stringify(newest)}\n`);
      const until = await t.http
        .get('/v1/audit-events/export?until=2026-02-01T00:00:00.000Z')
        .set(t.admin)
        .expect(200);
      expect(until.text).toBe('');
    });
  });

  describe('retention and metrics', () => {
    it('should purge the entries older than AUDIT_RETENTION_DAYS (365) in bulk, and keep the others', async () => {
      await t.dataSource.query(
        `INSERT INTO audit_events (occurred_at, action, outcome, actor_credential)
         SELECT now() - interval '366 days' - n * interval '1 second', 'auth.login', 'failure', 'none'
           FROM generate_series(1, 25000) n`,
      );
      await t.dataSource.query(
        `INSERT INTO audit_events (occurred_at, action, outcome, actor_credential)
         VALUES (now() - interval '364 days', 'auth.login', 'success', 'none')`,
      );
      expect(await t.app.get(AuditEventsService).purgeExpired()).toBe(25_000);

      const left = await entries();
      expect(left.map((e) => [e.action, e.outcome])).toEqual([['auth.login', 'success']]);
    });

    it('should count committed entries by action and outcome, never rolled-back ones', async () => {
      const metric = async (labels: string) => {
        const res = await t.http.get('/metrics').expect(200);
        const line = res.text
          .split('\n')
          .find((l) => l.startsWith(`petstore_audit_events_total{${labels}}`));
        return Number(line?.split(' ')[1] ?? 0);
      };
      const created = 'action="category.created",outcome="success"';
      const deleted = 'action="pet.deleted",outcome="success"';
      const before = { created: await metric(created), deleted: await metric(deleted) };

      const category = await createCategory('Counted').expect(201);
      const pet = await t.http
        .post('/v1/pets')
        .set(t.user)
        .send({ name: 'Counted', categoryId: category.body.id, status: 'available' })
        .expect(201);
      const unsubscribe = await subscribeToDeletions();
      const acceptMessages = await refuseInserts(t.dataSource, 'outbox_messages');
      try {
        await expectInternalError(
          await t.http.delete(`/v1/pets/${pet.body.id}`).set(t.user),
          REFUSED,
        );
      } finally {
        await acceptMessages();
        await unsubscribe();
      }
      expect(await metric(deleted)).toBe(before.deleted);
      await t.http.delete(`/v1/pets/${pet.body.id}`).set(t.user).expect(200);

      expect(await metric(created)).toBe(before.created + 1);
      expect(await metric(deleted)).toBe(before.deleted + 1);
    });
  });
});
