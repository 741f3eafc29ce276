import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Response } from 'supertest';
import { HOLD_EXPIRY_QUEUE } from '../../../src/adoptions/adoptions.service.js';
import { holdPasses, queuedExpiries } from '../../support/adoptions.js';
import { createUser, type CreatedUser } from '../../support/auth.js';
import { errorBody, expectError } from '../../support/errors.js';
import { createPet } from '../../support/pets.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';
import { testLogs } from '../../support/test-logs.js';
import { waitFor } from '../../support/wait.js';

const OPEN_PER_ADOPTER = 2;
const HOLD_MINUTES = 60;

type Move = 'approve' | 'complete' | 'reject' | 'cancel' | 'return' | 'extend';
type State =
  'requested' | 'approved' | 'completed' | 'rejected' | 'cancelled' | 'expired' | 'returned';

/** The moves that lead from a request to each state (expired: then the hold passes). */
const PATHS: Record<State, Move[]> = {
  requested: [],
  approved: ['approve'],
  completed: ['approve', 'complete'],
  rejected: ['reject'],
  cancelled: ['cancel'],
  expired: [],
  returned: ['approve', 'complete', 'return'],
};

/** Contract section 9's table: from each state, what each move leads to (adoption, pet). */
const OUTCOMES: Record<Move, Partial<Record<State, [string, string]>>> = {
  approve: { requested: ['approved', 'pending'] },
  complete: { approved: ['completed', 'sold'] },
  reject: { requested: ['rejected', 'available'], approved: ['rejected', 'available'] },
  cancel: { requested: ['cancelled', 'available'], approved: ['cancelled', 'available'] },
  return: { completed: ['returned', 'available'] },
  extend: { requested: ['requested', 'pending'], approved: ['approved', 'pending'] },
};

const ALLOWED_FROM: Record<State, string[]> = {
  requested: ['approved', 'rejected', 'cancelled', 'requested'],
  approved: ['completed', 'rejected', 'cancelled', 'approved'],
  completed: ['returned'],
  rejected: [],
  cancelled: [],
  expired: [],
  returned: [],
};

const STATES = Object.keys(PATHS) as State[];

const idsOf = (res: Response) => (res.body.adoptions as { id: number }[]).map((a) => a.id);
const MOVES = Object.keys(OUTCOMES) as Move[];

describe('Adoptions (e2e)', () => {
  let t: TestApp;
  let customer: CreatedUser;
  let other: CreatedUser;

  beforeAll(async () => {
    t = await createTestApp({
      ADOPTIONS_OPEN_PER_ADOPTER: String(OPEN_PER_ADOPTER),
      ADOPTION_HOLD_MINUTES: String(HOLD_MINUTES),
      OUTBOX_POLL_INTERVAL_MS: '50',
      // A failing hold expiry is given up after one attempt unless its queue retries for longer.
      OUTBOX_MAX_ATTEMPTS: '1',
      OUTBOX_RETRY_BASE_MS: '10',
    });
    customer = await createUser(t, { role: 'customer' });
    other = await createUser(t, { role: 'customer' });
  });
  afterAll(async () => {
    await t?.close();
  });

  const request = (headers: Record<string, string>, body: object) =>
    t.http.post('/v1/adoptions').set(headers).send(body);
  const move = (id: number, name: Move, headers = t.user, body?: object) => {
    const req = t.http.post(`/v1/adoptions/${id}/${name}`).set(headers);
    return body || name === 'extend' ? req.send(body ?? { hours: 2 }) : req;
  };
  const petStatus = async (petId: number) =>
    (await t.http.get(`/v1/pets/${petId}`).set(t.user).expect(200)).body.status as string;

  /** A new pet and an adoption of it requested by a new customer (within the limit). */
  async function adoptionIn(state: State): Promise<{ id: number; petId: number }> {
    const adopter = await createUser(t, { role: 'customer' });
    const petId = await createPet(t);
    const res = await request(adopter.headers, { petId }).expect(201);
    for (const step of PATHS[state]) await move(res.body.id, step).expect(200);
    if (state === 'expired') {
      await holdPasses(query, res.body.id);
      await waitFor(async () => (await adoptionStatus(res.body.id)) === 'expired');
    }
    return { id: res.body.id as number, petId };
  }

  it('should hold an available pet for the customer who requests it', async () => {
    const petId = await createPet(t);
    const before = Date.now();
    const res = await request(customer.headers, { petId, message: 'I have a garden' });

    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      pet: { id: petId, name: 'Rex', status: 'pending' },
      adopter: { id: customer.id, username: customer.username },
      status: 'requested',
      message: 'I have a garden',
      holdExpiresAt: expect.any(String),
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const hold = Date.parse(res.body.holdExpiresAt) - before;
    expect(hold).toBeGreaterThanOrEqual(HOLD_MINUTES * 60_000 - 1000);
    expect(hold).toBeLessThanOrEqual(HOLD_MINUTES * 60_000 + 5000);
    const pet = await t.http.get(`/v1/pets/${petId}`).set(customer.headers).expect(200);
    expect(pet.body.status).toBe('pending');
    expect(pet.body.adoption).toEqual({
      id: res.body.id,
      status: 'requested',
      holdExpiresAt: res.body.holdExpiresAt,
    });

    await move(res.body.id, 'cancel', customer.headers).expect(200);
    const history = await t.http.get(`/v1/pets/${petId}/history`).set(t.user).expect(200);
    const moves = (history.body.events as { type: string; to?: string; adoptionId?: number }[])
      .filter((event) => event.type === 'pet.status_changed')
      .map((event) => [event.to, event.adoptionId]);
    expect(moves).toEqual([
      ['available', res.body.id],
      ['pending', res.body.id],
    ]);
    const freed = await t.http.get(`/v1/pets/${petId}`).set(customer.headers).expect(200);
    expect(freed.body.status).toBe('available');
    expect(freed.body.adoption).toBeUndefined();
  });

  it('should name in the pet’s history a customer’s own moves as the customer’s, and staff’s as staff’s', async () => {
    const adopter = await createUser(t, { role: 'customer' });
    const petId = await createPet(t);
    const first = (await request(adopter.headers, { petId }).expect(201)).body;
    await move(first.id, 'cancel', adopter.headers).expect(200);
    const second = (await request(adopter.headers, { petId }).expect(201)).body;
    await move(second.id, 'reject').expect(200);

    const actors = async (headers: Record<string, string>) =>
      (
        (await t.http.get(`/v1/pets/${petId}/history`).set(headers).expect(200)).body.events as {
          type: string;
          to?: string;
          actor: object;
        }[]
      )
        .filter((event) => event.type === 'pet.status_changed')
        .map((event) => [event.to, event.actor]);
    expect(await actors(other.headers)).toEqual([
      ['available', { role: 'staff' }],
      ['pending', { role: 'customer' }],
      ['available', { role: 'customer' }],
      ['pending', { role: 'customer' }],
    ]);
    expect(await actors(t.user)).toEqual([
      ['available', { userId: t.plainUser.id }],
      ['pending', { userId: adopter.id }],
      ['available', { userId: adopter.id }],
      ['pending', { userId: adopter.id }],
    ]);
  });

  it('should refuse a pet that is not available with 409 PET_NOT_AVAILABLE naming its status', async () => {
    const petId = await createPet(t, { status: 'sold' });
    const res = await request(customer.headers, { petId });
    expectError(res, 409, 'PET_NOT_AVAILABLE');
    expect(res.body.details).toEqual({ status: 'sold' });
  });

  it('should answer 404 PET_NOT_FOUND for a pet that does not exist', async () => {
    expectError(await request(customer.headers, { petId: 99_999_999 }), 404, 'PET_NOT_FOUND');
  });

  const cases = MOVES.flatMap((name) => STATES.map((state) => [name, state] as const));
  it.each(cases)('should answer %s from %s as the table says', async (name, state) => {
    const { id, petId } = await adoptionIn(state);
    const petBefore = await petStatus(petId);
    const res = await move(id, name);
    const outcome = OUTCOMES[name][state];
    if (outcome) {
      expect(res.status).toBe(200);
      expect(res.body.status).toBe(outcome[0]);
      expect(res.body.pet.status).toBe(outcome[1]);
      expect(await petStatus(petId)).toBe(outcome[1]);
    } else {
      expect(res.body).toEqual(
        errorBody('INVALID_ADOPTION_TRANSITION', {
          from: state,
          to: expect.any(String),
          allowed: expect.arrayContaining(ALLOWED_FROM[state]),
        }),
      );
      expect(res.status).toBe(409);
      expect(res.body.details.allowed).toHaveLength(ALLOWED_FROM[state].length);
      expect(await petStatus(petId)).toBe(petBefore);
    }
  });

  it('should move the hold by extend and start it again on approve', async () => {
    const { id } = await adoptionIn('requested');
    const requested = (await t.http.get(`/v1/adoptions/${id}`).set(t.user).expect(200)).body;
    const extended = await move(id, 'extend', t.user, { hours: 3 }).expect(200);
    expect(Date.parse(extended.body.holdExpiresAt) - Date.parse(requested.holdExpiresAt)).toBe(
      3 * 3_600_000,
    );
    const approved = await move(id, 'approve').expect(200);
    expect(approved.body.holdExpiresAt).not.toBe(extended.body.holdExpiresAt);
    expect(approved.body.decidedBy).toEqual({ id: t.plainUser.id, username: t.plainUser.username });
    const completed = await move(id, 'complete').expect(200);
    expect(completed.body.holdExpiresAt).toBeUndefined();
  });

  it('should take a move with no body, or with a reason it keeps, and refuse any other field', async () => {
    const { id } = await adoptionIn('requested');
    const unknownField = await move(id, 'reject', t.user, { reason: 'x', hours: 2 });
    expect(unknownField.status).toBe(400);
    expect(unknownField.body.code).toBe('VALIDATION_ERROR');
    expectError(
      await move(id, 'reject', t.user, { reason: 'x'.repeat(501) }),
      400,
      'VALIDATION_ERROR',
    );
    const rejected = await move(id, 'reject', t.user, { reason: 'No garden for a collie' });
    expect(rejected.status).toBe(200);
    expect(rejected.body).toMatchObject({ status: 'rejected', reason: 'No garden for a collie' });
    const other = await adoptionIn('requested');
    expect((await move(other.id, 'approve').expect(200)).body.reason).toBeUndefined();
  });

  it('should let only staff make the staff moves (403 for the adopter)', async () => {
    const adopter = await createUser(t, { role: 'customer' });
    const petId = await createPet(t);
    const { body } = await request(adopter.headers, { petId }).expect(201);
    expectError(await move(body.id, 'approve', adopter.headers), 403, 'INSUFFICIENT_PERMISSIONS');
    await move(body.id, 'cancel', adopter.headers).expect(200);
  });

  it('should answer a customer 404 ADOPTION_NOT_FOUND for someone else’s adoption', async () => {
    const { id } = await adoptionIn('requested');
    expectError(
      await t.http.get(`/v1/adoptions/${id}`).set(other.headers),
      404,
      'ADOPTION_NOT_FOUND',
    );
    expectError(await move(id, 'cancel', other.headers), 404, 'ADOPTION_NOT_FOUND');
    await t.http.get(`/v1/adoptions/${id}`).set(t.user).expect(200);
  });

  it('should refuse more open adoptions than ADOPTIONS_OPEN_PER_ADOPTER', async () => {
    const adopter = await createUser(t, { role: 'customer' });
    const ids: number[] = [];
    for (let i = 0; i < OPEN_PER_ADOPTER; i += 1) {
      const res = await request(adopter.headers, { petId: await createPet(t) }).expect(201);
      ids.push(res.body.id as number);
    }
    const petId = await createPet(t);
    const refused = await request(adopter.headers, { petId });
    expectError(refused, 409, 'ADOPTION_LIMIT_REACHED');
    expect(await petStatus(petId)).toBe('available');

    await move(ids[0], 'cancel', adopter.headers).expect(200);
    await request(adopter.headers, { petId }).expect(201);
  });

  it('should let staff request for a customer, and refuse adopterId from a customer', async () => {
    const petId = await createPet(t);
    const res = await request(t.user, { petId, adopterId: other.id }).expect(201);
    expect(res.body.adopter).toEqual({ id: other.id, username: other.username });
    expectError(
      await request(customer.headers, { petId: await createPet(t), adopterId: other.id }),
      403,
      'INSUFFICIENT_PERMISSIONS',
    );
    await move(res.body.id, 'cancel').expect(200);
  });

  it('should refuse staff a request for another staff account or for no account', async () => {
    const petId = await createPet(t);
    for (const adopterId of [t.plainUser.id, 999_999_999]) {
      const res = await request(t.user, { petId, adopterId });
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(res.body.details.fields).toEqual([
        {
          field: 'adopterId',
          message: expect.stringMatching(/^user \d+ (is not a customer|does not exist)$/),
        },
      ]);
    }
    expect((await t.http.get(`/v1/pets/${petId}`).set(t.user)).body.status).toBe('available');
  });

  it('should give one of two requests for one pet at once, and 409 to the other', async () => {
    const petId = await createPet(t);
    const [a, b] = await Promise.all([
      request(customer.headers, { petId }),
      request(other.headers, { petId }),
    ]);
    expect([a.status, b.status].sort()).toEqual([201, 409]);
    const lost = a.status === 409 ? a : b;
    expectError(lost, 409, 'PET_NOT_AVAILABLE');
    const won = a.status === 201 ? a : b;
    await move(won.body.id, 'cancel').expect(200);
  });

  it('should let one of two moves of one adoption at once win', async () => {
    const { id, petId } = await adoptionIn('approved');
    const [a, b] = await Promise.all([move(id, 'complete'), move(id, 'reject')]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const won = a.status === 200 ? a : b;
    expect(await petStatus(petId)).toBe(won.body.pet.status);
  });

  it('should honour If-Match on a move (412 on a stale ETag)', async () => {
    const { id } = await adoptionIn('requested');
    const read = await t.http.get(`/v1/adoptions/${id}`).set(t.user).expect(200);
    const etag = read.headers.etag;
    await move(id, 'extend', t.user, { hours: 1 }).expect(200);
    const stale = await t.http
      .post(`/v1/adoptions/${id}/approve`)
      .set(t.user)
      .set('If-Match', etag);
    expectError(stale, 412, 'PRECONDITION_FAILED');
  });

  it('should change a pet’s ETag when its adoption changes, and answer 304 only while it is the same', async () => {
    const { id, petId } = await adoptionIn('requested');
    const read = (etag?: string) => {
      const req = t.http.get(`/v1/pets/${petId}`).set(t.user);
      return etag === undefined ? req : req.set('If-None-Match', etag);
    };
    const requested = (await read().expect(200)).headers.etag;
    await read(requested).expect(304);
    await move(id, 'approve').expect(200);

    const approved = await read(requested).expect(200);
    expect(approved.body.adoption.status).toBe('approved');
    expect(approved.headers.etag).not.toBe(requested);
    await read(approved.headers.etag).expect(304);
    // A PUT's If-Match is about the pet's own fields: the tag read with the adoption holds.
    await t.http
      .put(`/v1/pets/${petId}`)
      .set(t.user)
      .set('If-Match', approved.headers.etag)
      .send({ name: 'Rexy' })
      .expect(200);
  });

  it('should change an adoption’s ETag when its pet changes, and answer 304 only while it is the same', async () => {
    const { id, petId } = await adoptionIn('requested');
    const read = (etag?: string) => {
      const req = t.http.get(`/v1/adoptions/${id}`).set(t.user);
      return etag === undefined ? req : req.set('If-None-Match', etag);
    };
    const before = (await read().expect(200)).headers.etag;
    await read(before).expect(304);
    await t.http.put(`/v1/pets/${petId}`).set(t.user).send({ name: 'Rexy' }).expect(200);

    const renamed = await read(before).expect(200);
    expect(renamed.body.pet.name).toBe('Rexy');
    expect(renamed.headers.etag).not.toBe(before);
    await read(renamed.headers.etag).expect(304);
    await t.http
      .post(`/v1/adoptions/${id}/approve`)
      .set(t.user)
      .set('If-Match', renamed.headers.etag)
      .expect(200);
  });

  it('should refuse a PUT of the status and a DELETE of a pet with an open adoption', async () => {
    const { id, petId } = await adoptionIn('requested');
    const put = await t.http.put(`/v1/pets/${petId}`).set(t.user).send({ status: 'sold' });
    expectError(put, 409, 'PET_HAS_OPEN_ADOPTION');
    const same = await t.http.put(`/v1/pets/${petId}`).set(t.user).send({ status: 'pending' });
    expectError(same, 409, 'PET_HAS_OPEN_ADOPTION');
    await t.http.put(`/v1/pets/${petId}`).set(t.user).send({ name: 'Rexy' }).expect(200);
    expectError(
      await t.http.delete(`/v1/pets/${petId}`).set(t.admin),
      409,
      'PET_HAS_OPEN_ADOPTION',
    );

    await move(id, 'cancel').expect(200);
    await t.http.put(`/v1/pets/${petId}`).set(t.user).send({ status: 'pending' }).expect(200);
  });

  it('should refuse in the database a status write that bypasses the service', async () => {
    const { petId } = await adoptionIn('approved');
    await expect(
      t.dataSource.query(`UPDATE pets SET status = 'available' WHERE id = $1`, [petId]),
    ).rejects.toThrow(/open adoption/);
    await expect(t.dataSource.query('DELETE FROM pets WHERE id = $1', [petId])).rejects.toThrow(
      /open adoption/,
    );
  });

  it('should list adoptions newest first with filters and cursor paging', async () => {
    const adopter = await createUser(t, { role: 'customer' });
    const petIds = [await createPet(t), await createPet(t)];
    const created: number[] = [];
    for (const petId of petIds) {
      created.push((await request(adopter.headers, { petId }).expect(201)).body.id as number);
    }
    await move(created[0], 'cancel', adopter.headers).expect(200);

    const first = await t.http
      .get('/v1/adoptions')
      .query({ adopterId: adopter.id, limit: 1 })
      .set(t.user)
      .expect(200);
    expect(idsOf(first)).toEqual([created[1]]);
    const second = await t.http
      .get('/v1/adoptions')
      .query({ adopterId: adopter.id, limit: 1, cursor: first.body.pagination.nextCursor })
      .set(t.user)
      .expect(200);
    expect(idsOf(second)).toEqual([created[0]]);
    expect(second.body.pagination.nextCursor).toBeUndefined();

    const open = await t.http
      .get('/v1/adoptions?status=requested&status=approved')
      .set(adopter.headers)
      .expect(200);
    expect(idsOf(open)).toEqual([created[1]]);
    const mine = await t.http.get('/v1/adoptions').set(other.headers).expect(200);
    const adopters = (mine.body.adoptions as { adopter: { id: number } }[]).map(
      (a) => a.adopter.id,
    );
    expect(new Set(adopters)).toEqual(new Set([other.id]));
    expectError(
      await t.http.get(`/v1/adoptions?adopterId=${adopter.id}`).set(other.headers),
      403,
      'INSUFFICIENT_PERMISSIONS',
    );
    await move(created[1], 'cancel', adopter.headers).expect(200);
  });

  const query = (sql: string, params: unknown[]) => t.dataSource.query(sql, params);
  const adoptionStatus = async (id: number) =>
    (await t.http.get(`/v1/adoptions/${id}`).set(t.user).expect(200)).body.status as string;

  // The pet is moved out from under its open adoption (no path of the service can): its
  // expiry, which moves it pending → available, fails until it is back.
  const setPetStatus = (petId: number, status: string) =>
    t.dataSource.transaction(async (manager) => {
      await manager.query(`SET LOCAL session_replication_role = replica`);
      await manager.query(`UPDATE pets SET status = $2 WHERE id = $1`, [petId, status]);
    });

  it('should expire an adoption whose hold passed, and free its pet', async () => {
    const { id, petId } = await adoptionIn('requested');
    await holdPasses(query, id);
    await waitFor(async () => (await adoptionStatus(id)) === 'expired');
    expect(await petStatus(petId)).toBe('available');
    const res = await t.http.get(`/v1/adoptions/${id}`).set(t.user).expect(200);
    expect(res.body.holdExpiresAt).toBeUndefined();
  });

  it('should keep trying a hold’s expiry that fails, past OUTBOX_MAX_ATTEMPTS, until it expires', async () => {
    const { id, petId } = await adoptionIn('requested');
    await setPetStatus(petId, 'sold');
    await holdPasses(query, id);
    const expiryAttempts = async () => {
      const [job] = await t.dataSource.query<{ attempts: number; failed: boolean }[]>(
        `SELECT attempts, failed_at IS NOT NULL AS failed FROM outbox_messages
          WHERE consumer = $1 AND (event->>'adoptionId')::bigint = $2`,
        [HOLD_EXPIRY_QUEUE, id],
      );
      return job;
    };
    await waitFor(async () => (await expiryAttempts()).attempts >= 3);
    expect((await expiryAttempts()).failed).toBe(false);
    expect(await adoptionStatus(id)).toBe('requested');

    await setPetStatus(petId, 'pending');
    await waitFor(async () => (await adoptionStatus(id)) === 'expired');
    expect(await petStatus(petId)).toBe('available');
    testLogs.take(
      (line) => line.context === 'Outbox' && String(line.msg).includes(`adoption:${id},`),
    );
  });

  it('should expire the holds that pass at once while another one’s expiry keeps failing', async () => {
    const failing = await adoptionIn('requested');
    await setPetStatus(failing.petId, 'sold');
    const others = [await adoptionIn('requested'), await adoptionIn('requested')];
    // The failing one comes due first, and is claimed first.
    await holdPasses(query, failing.id);
    for (const { id } of others) await holdPasses(query, id);

    await waitFor(async () =>
      (await Promise.all(others.map(({ id }) => adoptionStatus(id)))).every(
        (status) => status === 'expired',
      ),
    );
    for (const { petId } of others) expect(await petStatus(petId)).toBe('available');
    expect(await adoptionStatus(failing.id)).toBe('requested');

    await setPetStatus(failing.petId, 'pending');
    await waitFor(async () => (await adoptionStatus(failing.id)) === 'expired');
    testLogs.take(
      (line) => line.context === 'Outbox' && String(line.msg).includes(`adoption:${failing.id},`),
    );
  });

  it('should leave an adoption decided before its hold passed as it is', async () => {
    const { id, petId } = await adoptionIn('approved');
    await move(id, 'complete').expect(200);
    await t.dataSource.query(
      `UPDATE outbox_messages SET next_attempt_at = now()
        WHERE consumer = $1 AND (event->>'adoptionId')::bigint = $2`,
      [HOLD_EXPIRY_QUEUE, id],
    );
    await waitFor(async () => (await pendingExpiries(id)) === 0);
    expect(await adoptionStatus(id)).toBe('completed');
    expect(await petStatus(petId)).toBe('sold');
  });

  const pendingExpiries = (id: number) => queuedExpiries(query, id);

  it('should not expire an adoption whose hold was moved by extend', async () => {
    const { id } = await adoptionIn('requested');
    await move(id, 'extend', t.user, { hours: 5 }).expect(200);
    // The first hold's job comes due: the hold it was queued for is no longer the adoption's.
    await t.dataSource.query(
      `UPDATE outbox_messages SET next_attempt_at = now()
        WHERE id = (SELECT min(id) FROM outbox_messages
                     WHERE consumer = $1 AND (event->>'adoptionId')::bigint = $2)`,
      [HOLD_EXPIRY_QUEUE, id],
    );
    await waitFor(async () => (await pendingExpiries(id)) === 1);
    expect(await adoptionStatus(id)).toBe('requested');
  });

  it('should expire the holds that pass together, leaving one whose hold was extended', async () => {
    const passing = [await adoptionIn('requested'), await adoptionIn('requested')];
    const extended = await adoptionIn('requested');
    await move(extended.id, 'extend', t.user, { hours: 5 }).expect(200);
    // One commit makes all three due: the expiries' lane claims them together.
    await t.dataSource.transaction(async (manager) => {
      const inTx = (sql: string, params: unknown[]) => manager.query(sql, params);
      for (const { id } of passing) await holdPasses(inTx, id);
      await manager.query(
        `UPDATE outbox_messages SET next_attempt_at = now()
          WHERE id = (SELECT min(id) FROM outbox_messages
                       WHERE consumer = $1 AND (event->>'adoptionId')::bigint = $2)`,
        [HOLD_EXPIRY_QUEUE, extended.id],
      );
    });

    await waitFor(async () => (await pendingExpiries(extended.id)) === 1);
    await waitFor(async () =>
      (await Promise.all(passing.map(({ id }) => adoptionStatus(id)))).every(
        (status) => status === 'expired',
      ),
    );
    for (const { id, petId } of passing) {
      expect(await petStatus(petId)).toBe('available');
      const history = await t.http.get(`/v1/pets/${petId}/history`).set(t.user).expect(200);
      const moves = (history.body.events as { type: string; to?: string; adoptionId?: number }[])
        .filter((event) => event.type === 'pet.status_changed')
        .map((event) => [event.to, event.adoptionId]);
      expect(moves).toEqual([
        ['available', id],
        ['pending', id],
      ]);
    }
    expect(await adoptionStatus(extended.id)).toBe('requested');
    expect(await petStatus(extended.petId)).toBe('pending');
    await move(extended.id, 'cancel').expect(200);
  });

  it('should answer a replayed request with the same Idempotency-Key once', async () => {
    const petId = await createPet(t);
    const key = `adopt-${petId}`;
    const send = (): Promise<Response> =>
      t.http
        .post('/v1/adoptions')
        .set(customer.headers)
        .set('Idempotency-Key', key)
        .send({ petId });
    const first = await send();
    const again = await send();
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(first.body.id);
    await move(first.body.id, 'cancel').expect(200);
  });
  it('should answer a move replayed with the same Idempotency-Key as the first time', async () => {
    const { id } = await adoptionIn('requested');
    const send = () =>
      t.http
        .post(`/v1/adoptions/${id}/approve`)
        .set(t.user)
        .set('Idempotency-Key', `approve-${id}`);
    const first = await send();
    const again = await send();
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
  });

  it.each([[{}], [{ hours: 0 }], [{ hours: 169 }], [{ hours: 1.5 }], [{ hours: 2, extra: 1 }]])(
    'should refuse the extend body %j with 400 VALIDATION_ERROR',
    async (body) => {
      const { id } = await adoptionIn('requested');
      const res = await t.http.post(`/v1/adoptions/${id}/extend`).set(t.user).send(body);
      expectError(res, 400, 'VALIDATION_ERROR');
    },
  );
  it('should cancel a deleted adopter’s open adoptions, free their pets, and keep the closed ones without the adopter', async () => {
    const adopter = await createUser(t, { role: 'customer' });
    const openPet = await createPet(t);
    const closedPet = await createPet(t);
    const open = (await request(adopter.headers, { petId: openPet }).expect(201)).body;
    const closed = (await request(adopter.headers, { petId: closedPet }).expect(201)).body;
    await move(closed.id, 'approve').expect(200);
    await move(closed.id, 'complete').expect(200);

    await t.http.delete(`/v1/users/${adopter.id}`).set(t.admin).expect(200);

    const freed = await t.http.get(`/v1/pets/${openPet}`).set(t.user).expect(200);
    expect(freed.body.status).toBe('available');
    expect(freed.body.adoption).toBeUndefined();
    const cancelled = await t.http.get(`/v1/adoptions/${open.id}`).set(t.user).expect(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', pet: { status: 'available' } });
    expect(cancelled.body.adopter).toBeUndefined();
    expect(cancelled.body.holdExpiresAt).toBeUndefined();
    const completed = await t.http.get(`/v1/adoptions/${closed.id}`).set(t.user).expect(200);
    expect(completed.body).toMatchObject({ status: 'completed', pet: { status: 'sold' } });
    expect(completed.body.adopter).toBeUndefined();
    const history = await t.http.get(`/v1/pets/${openPet}/history`).set(t.user).expect(200);
    expect(history.body.events[0]).toMatchObject({
      type: 'pet.status_changed',
      from: 'pending',
      to: 'available',
      adoptionId: open.id,
    });
    const listed = await t.http
      .get('/v1/adoptions')
      .query({ petId: closedPet })
      .set(t.user)
      .expect(200);
    expect(idsOf(listed)).toEqual([closed.id]);
    await move(closed.id, 'return').expect(200);
  });

  it('should name the service as who freed the pet of a deleted adopter’s adoption and of a passed hold, for every reader', async () => {
    const adopter = await createUser(t, { role: 'customer' });
    const petId = await createPet(t);
    const cancelled = (await request(adopter.headers, { petId }).expect(201)).body;
    const expired = await adoptionIn('expired');
    await t.http.delete(`/v1/users/${adopter.id}`).set(t.admin).expect(200);

    const freed: [number, number][] = [
      [petId, cancelled.id],
      [expired.petId, expired.id],
    ];
    for (const reader of [t.admin, t.user, other.headers]) {
      for (const [pet, adoptionId] of freed) {
        const history = await t.http.get(`/v1/pets/${pet}/history`).set(reader).expect(200);
        const [latest] = history.body.events as { to?: string; actor: object }[];
        expect(latest).toMatchObject({ to: 'available', adoptionId });
        expect(latest.actor).toEqual({ role: 'system' });
      }
    }
    const adoption = await t.http.get(`/v1/adoptions/${cancelled.id}`).set(t.admin).expect(200);
    expect(adoption.body).toMatchObject({
      status: 'cancelled',
      reason: 'The adopter’s account was deleted',
    });
    expect(adoption.body.decidedBy).toBeUndefined();
  });

  it('should audit staff’s moves as adoption.<move>, and not a customer’s own cancel', async () => {
    const adopter = await createUser(t, { role: 'customer' });
    const petId = await createPet(t);
    const { body } = await request(adopter.headers, { petId }).expect(201);
    await move(body.id, 'approve').expect(200);
    await move(body.id, 'cancel', adopter.headers).expect(200);

    const res = await t.http
      .get('/v1/audit-events')
      .query({ targetType: 'adoption', targetId: body.id })
      .set(t.admin)
      .expect(200);
    const entries = res.body.auditEvents as { action: string; actor: { userId?: number } }[];
    expect(entries.map((entry) => [entry.action, entry.actor.userId])).toEqual([
      ['adoption.approve', t.plainUser.id],
    ]);
  });
});
