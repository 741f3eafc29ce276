import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { PET_EVENT_TYPES, type PetEvent } from '../../../src/pets/pet-events.js';
import { petEventData } from '../../../src/pets/pet.mapper.js';
import { apiKey, createApiKey, createUser, type Headers } from '../../support/auth.js';
import { expectError, expectValidationError } from '../../support/errors.js';
import { jpegImage } from '../../support/images.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';
import { expectInternalError } from '../../support/test-logs.js';
import { uploadImage } from '../../support/uploads.js';

const EVENT_ID = /^evt_[0-9a-f]{32}$/;
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

interface HistoryEntry {
  id: string;
  type: string;
  occurredAt: string;
  actor: { userId?: number; apiKeyPrefix?: string };
  changedFields?: string[];
  from?: string;
  to?: string;
}

describe('Pet history (e2e)', () => {
  let t: TestApp;
  let mediaDir: string;
  let categoryId: number;
  let otherCategoryId: number;

  beforeAll(async () => {
    mediaDir = await mkdtemp(join(tmpdir(), 'petstore-history-'));
    t = await createTestApp({ MEDIA_DIR: mediaDir });
    const category = (name: string) =>
      t.http.post('/v1/categories').set(t.admin).send({ name }).expect(201);
    categoryId = (await category('History dogs')).body.id;
    otherCategoryId = (await category('History cats')).body.id;
  });
  afterAll(async () => {
    await t.close();
    await rm(mediaDir, { recursive: true, force: true });
  });

  async function newPet(fields: object = {}, headers: Headers = t.user) {
    const res = await t.http
      .post('/v1/pets')
      .set(headers)
      .send({ name: 'Rex', categoryId, status: 'available', ...fields })
      .expect(201);
    return res.body as { id: number; [field: string]: unknown };
  }

  const put = (petId: number, body: object, headers: Headers = t.user) =>
    t.http.put(`/v1/pets/${petId}`).set(headers).send(body);

  async function historyOf(petId: number, headers: Headers = t.user, query = '') {
    const res = await t.http.get(`/v1/pets/${petId}/history${query}`).set(headers).expect(200);
    return res.body as { events: HistoryEntry[]; pagination: Record<string, unknown> };
  }

  /** The kinds of a pet's events, newest first, with what tells them apart. */
  async function changesOf(petId: number, headers: Headers = t.user) {
    const { events } = await historyOf(petId, headers);
    return events.map(({ id: _id, occurredAt: _at, actor: _actor, ...change }) => change);
  }

  describe('GET /v1/pets/{petId}/history', () => {
    it('should record every kind of change, newest first, with who made it and when', async () => {
      const key = await createApiKey(t, t.user);
      const pet = await newPet();
      await put(pet.id, { name: 'Max', age: 4 }, apiKey(key.key)).expect(200);
      await put(pet.id, { status: 'pending', description: 'Calm' }).expect(200);
      await uploadImage(t, pet.id, await jpegImage(64, 48)).expect(201);
      await t.http.delete(`/v1/pets/${pet.id}`).set(t.admin).expect(200);

      const { events, pagination } = await historyOf(pet.id, t.admin);

      const user = { userId: t.plainUser.id };
      expect(events).toEqual([
        {
          id: expect.stringMatching(EVENT_ID),
          type: 'pet.deleted',
          occurredAt: expect.stringMatching(TIMESTAMP),
          actor: { userId: t.adminUser.id },
        },
        {
          id: expect.stringMatching(EVENT_ID),
          type: 'pet.image_added',
          occurredAt: expect.stringMatching(TIMESTAMP),
          actor: user,
        },
        {
          id: expect.stringMatching(EVENT_ID),
          type: 'pet.status_changed',
          occurredAt: expect.stringMatching(TIMESTAMP),
          actor: user,
          from: 'available',
          to: 'pending',
        },
        {
          id: expect.stringMatching(EVENT_ID),
          type: 'pet.updated',
          occurredAt: expect.stringMatching(TIMESTAMP),
          actor: user,
          changedFields: ['description'],
        },
        {
          id: expect.stringMatching(EVENT_ID),
          type: 'pet.updated',
          occurredAt: expect.stringMatching(TIMESTAMP),
          actor: { userId: t.plainUser.id, apiKeyPrefix: key.prefix },
          changedFields: ['name', 'age'],
        },
        {
          id: expect.stringMatching(EVENT_ID),
          type: 'pet.created',
          occurredAt: expect.stringMatching(TIMESTAMP),
          actor: user,
        },
      ]);
      expect(new Set(events.map((event) => event.id)).size).toBe(events.length);
      const times = events.map((event) => Date.parse(event.occurredAt));
      expect([...times].sort((a, b) => b - a)).toEqual(times);
      expect(events.at(-1)!.occurredAt).toBe(pet.createdAt);
      expect(pagination).toEqual({ limit: 20, offset: 0, total: 6, hasMore: false });
    });

    it('should name staff actors to a customer only as staff: no user id, no key prefix', async () => {
      const key = await createApiKey(t, t.user);
      const pet = await newPet();
      await put(pet.id, { name: 'Max' }, apiKey(key.key)).expect(200);
      const customer = await createUser(t, { role: 'customer' });

      const seenByCustomer = await historyOf(pet.id, customer.headers);
      expect(seenByCustomer.events.map((event) => event.actor)).toEqual([
        { role: 'staff' },
        { role: 'staff' },
      ]);
      const seenByStaff = await historyOf(pet.id, t.user);
      expect(seenByStaff.events.map((event) => event.actor)).toEqual([
        { userId: t.plainUser.id, apiKeyPrefix: key.prefix },
        { userId: t.plainUser.id },
      ]);
    });

    it('should name exactly the fields whose value changed, tags as a set and photoUrls as a list', async () => {
      const photos = ['https://a.example/1.jpg', 'https://a.example/2.jpg'];
      const pet = await newPet({ breed: 'Beagle', tags: ['b', 'a'], photoUrls: photos });

      await put(pet.id, {
        name: 'Rex',
        breed: 'Beagle',
        tags: ['a', 'b', 'a'],
        photoUrls: photos,
      }).expect(200);
      await put(pet.id, { status: 'available' }).expect(200);
      expect(await changesOf(pet.id)).toEqual([{ type: 'pet.created' }]);

      await put(pet.id, { photoUrls: [...photos].reverse() }).expect(200);
      await put(pet.id, { tags: ['a', 'c'], categoryId: otherCategoryId }).expect(200);
      await put(pet.id, { breed: null, name: 'Rex' }).expect(200);
      await put(pet.id, { name: 'Rex', status: 'pending' }).expect(200);
      await put(pet.id, {
        tags: [],
        photoUrls: [],
        description: 'Calm',
        status: 'available',
      }).expect(200);

      expect(await changesOf(pet.id)).toEqual([
        { type: 'pet.status_changed', from: 'pending', to: 'available' },
        { type: 'pet.updated', changedFields: ['photoUrls', 'description', 'tags'] },
        { type: 'pet.status_changed', from: 'available', to: 'pending' },
        { type: 'pet.updated', changedFields: ['breed'] },
        { type: 'pet.updated', changedFields: ['categoryId', 'tags'] },
        { type: 'pet.updated', changedFields: ['photoUrls'] },
        { type: 'pet.created' },
      ]);
    });

    it('should page like the pet list: limit and offset, or the cursor of the previous page', async () => {
      const pet = await newPet();
      for (const age of [1, 2, 3, 4]) await put(pet.id, { age }).expect(200);
      const all = (await historyOf(pet.id)).events.map((event) => event.id);
      expect(all).toHaveLength(5);

      const first = await historyOf(pet.id, t.user, '?limit=2');
      expect(first.events.map((event) => event.id)).toEqual(all.slice(0, 2));
      expect(first.pagination).toEqual({
        limit: 2,
        offset: 0,
        total: 5,
        hasMore: true,
        nextCursor: expect.any(String),
      });
      const second = await historyOf(
        pet.id,
        t.user,
        `?limit=2&cursor=${String(first.pagination.nextCursor)}`,
      );
      expect(second.events.map((event) => event.id)).toEqual(all.slice(2, 4));
      expect(second.pagination).toMatchObject({ offset: 2, total: 5, hasMore: true });
      const third = await historyOf(
        pet.id,
        t.user,
        `?limit=2&cursor=${String(second.pagination.nextCursor)}`,
      );
      expect(third.events.map((event) => event.id)).toEqual(all.slice(4));
      expect(third.pagination).toEqual({ limit: 2, offset: 4, total: 5, hasMore: false });

      const byOffset = await historyOf(pet.id, t.user, '?limit=2&offset=3');
      expect(byOffset.events.map((event) => event.id)).toEqual(all.slice(3, 5));

      const other = await newPet();
      const cursor = String(first.pagination.nextCursor);
      const refused = (query: string, petId = pet.id) =>
        t.http.get(`/v1/pets/${petId}/history${query}`).set(t.user);
      expectValidationError(await refused(`?cursor=${cursor}`, other.id), ['cursor']);
      expectValidationError(await refused(`?cursor=${cursor}&offset=2`), ['cursor']);
      expectValidationError(await refused('?cursor=bm90LWEtY3Vyc29y'), ['cursor']);
      expectValidationError(await refused('?limit=101'), ['limit']);
    });

    it('should refuse a request without credentials with 401', async () => {
      const pet = await newPet();
      expectError(await t.http.get(`/v1/pets/${pet.id}/history`), 401, 'AUTHENTICATION_REQUIRED');
    });

    it('should answer 404 PET_NOT_FOUND for a pet that never existed, and 400 for a malformed id', async () => {
      expectError(await t.http.get('/v1/pets/99999999/history').set(t.admin), 404, 'PET_NOT_FOUND');
      expectValidationError(await t.http.get('/v1/pets/abc/history').set(t.user), ['petId']);
    });

    it('should keep a deleted pet’s history for admins only', async () => {
      const pet = await newPet();
      await t.http.delete(`/v1/pets/${pet.id}`).set(t.user).expect(200);

      expect((await changesOf(pet.id, t.admin)).map((change) => change.type)).toEqual([
        'pet.deleted',
        'pet.created',
      ]);
      expectError(await t.http.get(`/v1/pets/${pet.id}/history`).set(t.user), 404, 'PET_NOT_FOUND');
      const other = await createUser(t);
      expectError(
        await t.http.get(`/v1/pets/${pet.id}/history`).set(other.headers),
        404,
        'PET_NOT_FOUND',
      );
    });

    it('should show any caller the history of a pet someone else changed', async () => {
      const pet = await newPet({}, t.admin);
      const other = await createUser(t);
      expect(await changesOf(pet.id, other.headers)).toEqual([{ type: 'pet.created' }]);
    });
  });

  describe('writes that do not happen', () => {
    it('should record nothing for a write refused with 412, 409 or 400', async () => {
      const pet = await newPet();
      const stale = { 'If-Match': '"0.0"' };
      expectError(await put(pet.id, { name: 'Max' }).set(stale), 412, 'PRECONDITION_FAILED');
      expectError(
        await t.http.delete(`/v1/pets/${pet.id}`).set(t.user).set(stale),
        412,
        'PRECONDITION_FAILED',
      );
      expectError(await put(pet.id, { status: 'sold' }), 409, 'INVALID_STATUS_TRANSITION');
      expectValidationError(await put(pet.id, { categoryId: 99999999 }), ['categoryId']);
      expectValidationError(await put(pet.id, { tags: ['x'], categoryId: 99999999 }), [
        'categoryId',
      ]);

      expect(await changesOf(pet.id)).toEqual([{ type: 'pet.created' }]);
    });

    // Real failures inside the write's transaction, from triggers of the test's own: the
    // deferred ones fail at COMMIT, after the events were written.
    describe('a write whose transaction fails', () => {
      beforeAll(async () => {
        await t.dataSource.query(`
          CREATE FUNCTION test_fail() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN RAISE EXCEPTION 'refused by the test'; END $$`);
        await t.dataSource.query(`
          CREATE CONSTRAINT TRIGGER test_fail_doomed_update AFTER UPDATE ON pets
          DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.name = 'Doomed')
          EXECUTE FUNCTION test_fail()`);
        await t.dataSource.query(`
          CREATE CONSTRAINT TRIGGER test_fail_undeletable AFTER DELETE ON pets
          DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (OLD.name = 'Undeletable')
          EXECUTE FUNCTION test_fail()`);
        await t.dataSource.query(`
          CREATE FUNCTION test_fail_cursed() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN
            IF (SELECT name FROM tags WHERE id = NEW.tag_id) = 'cursed' THEN
              RAISE EXCEPTION 'cursed tag';
            END IF;
            RETURN NEW;
          END $$`);
        await t.dataSource.query(`
          CREATE TRIGGER test_fail_cursed_tag BEFORE INSERT ON pet_tags
          FOR EACH ROW EXECUTE FUNCTION test_fail_cursed()`);
        await t.dataSource.query(`
          CREATE TRIGGER test_fail_unrecordable BEFORE INSERT ON pet_events
          FOR EACH ROW WHEN (NEW.pet->>'name' = 'Unrecordable')
          EXECUTE FUNCTION test_fail()`);
      });

      async function expectUnchanged(petId: number, before: object) {
        const res = await t.http.get(`/v1/pets/${petId}`).set(t.user).expect(200);
        expect(res.body).toEqual(before);
        expect(await changesOf(petId)).toEqual([{ type: 'pet.created' }]);
      }

      it('should record nothing when an update fails at commit, after its events were written', async () => {
        const pet = await newPet();
        await expectInternalError(
          await put(pet.id, { name: 'Doomed', status: 'pending' }),
          'refused by the test',
        );
        await expectInternalError(
          await put(pet.id, { name: 'Doomed', tags: ['new'] }),
          'refused by the test',
        );
        await expectUnchanged(pet.id, pet);
      });

      it('should record nothing when the tags step of an update fails', async () => {
        const pet = await newPet();
        await expectInternalError(
          await put(pet.id, { name: 'Max', tags: ['cursed'] }),
          'cursed tag',
        );
        await expectUnchanged(pet.id, pet);
      });

      it('should record nothing when a deletion fails at commit', async () => {
        const pet = await newPet({ name: 'Undeletable' });
        await expectInternalError(
          await t.http.delete(`/v1/pets/${pet.id}`).set(t.user),
          'refused by the test',
        );
        await expectUnchanged(pet.id, pet);
      });

      it('should not make a change whose event cannot be recorded', async () => {
        const pet = await newPet();
        await expectInternalError(
          await put(pet.id, { name: 'Unrecordable' }),
          'refused by the test',
        );
        await expectUnchanged(pet.id, pet);
        const before = await t.dataSource.query<{ n: number }[]>(
          'SELECT count(*)::int AS n FROM pets',
        );
        await expectInternalError(
          await t.http
            .post('/v1/pets')
            .set(t.user)
            .send({ name: 'Unrecordable', categoryId, status: 'available' }),
          'refused by the test',
        );
        expect(await t.dataSource.query('SELECT count(*)::int AS n FROM pets')).toEqual(before);
      });
    });
  });

  describe('publishing (domain events)', () => {
    const published: PetEvent[] = [];
    const record = (event: PetEvent) => published.push(event);

    beforeAll(() => {
      const emitter = t.app.get(EventEmitter2);
      for (const type of PET_EVENT_TYPES) emitter.on(type, record);
    });

    /** What the writes made by `work` published, in order. */
    async function publishedBy(work: () => Promise<unknown>): Promise<PetEvent[]> {
      published.length = 0;
      await work();
      return [...published];
    }

    it('should publish each recorded event in order, with the pet as the API showed it, inside its transaction', async () => {
      let created: { id: number; [field: string]: unknown } | undefined;
      let moved: { updatedAt: string; [field: string]: unknown } | undefined;
      const events = await publishedBy(async () => {
        created = await newPet({ tags: ['calm'], breed: 'Beagle' });
        moved = (await put(created.id, { status: 'pending', name: 'Max' }).expect(200)).body;
      });

      const ids = (await historyOf(created!.id)).events.map((event) => event.id).reverse();
      expect(events.map((event) => [event.id, event.type, event.subject, event.petId])).toEqual([
        [ids[0], 'pet.created', `pet:${created!.id}`, created!.id],
        [ids[1], 'pet.updated', `pet:${created!.id}`, created!.id],
        [ids[2], 'pet.status_changed', `pet:${created!.id}`, created!.id],
      ]);
      expect(events.map(petEventData)).toEqual([
        created,
        moved,
        { ...moved, from: 'available', to: 'pending' },
      ]);
      expect(events[0].occurredAt).toBe(created!.createdAt);
      expect(events[2].occurredAt).toBe(moved!.updatedAt);
      expect(events[1].changedFields).toEqual(['name']);
      const sequences = events.map((event) => event.sequence);
      expect([...sequences].sort((a, b) => a - b)).toEqual(sequences);
      // JSON throughout: what a durable handler gets back from the outbox is the same event.
      expect(JSON.parse(JSON.stringify(events))).toEqual(events);
    });

    it('should publish a deleted pet as it was', async () => {
      const pet = await newPet({ age: 2 });
      const events = await publishedBy(() =>
        t.http.delete(`/v1/pets/${pet.id}`).set(t.user).expect(200),
      );
      expect(events.map((event) => [event.type, petEventData(event)])).toEqual([
        ['pet.deleted', pet],
      ]);
    });

    it('should publish nothing for a refused write or one that changed nothing', async () => {
      const pet = await newPet({ tags: ['a'] });
      const events = await publishedBy(async () => {
        await put(pet.id, { name: 'Rex', tags: ['a'] }).expect(200);
        await put(pet.id, { status: 'available' }).expect(200);
        await put(pet.id, { status: 'sold' }).expect(409);
        await put(pet.id, { status: 'pending' }).expect(200);
        await put(pet.id, { tags: ['b'] }).expect(200);
        await uploadImage(t, pet.id, await jpegImage(32, 32)).expect(201);
      });
      expect(events.map((event) => [event.type, event.changedFields])).toEqual([
        ['pet.status_changed', null],
        ['pet.updated', ['tags']],
        ['pet.image_added', null],
      ]);
    });
  });
});
