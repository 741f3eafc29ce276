import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import fc from 'fast-check';
import type { Response } from 'supertest';
import { holdPasses, queuedExpiries } from '../../support/adoptions.js';
import { createUser, type CreatedUser } from '../../support/auth.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';
import { waitFor } from '../../support/wait.js';

/**
 * Random sequences of requests, moves, expiries, pet updates and deletes, over real HTTP,
 * against a model of contract section 9 written here: after every step, each answer is the
 * model's (status and code), and so are every pet's status and open adoption, every adoption
 * of the run, and each pet's status history (every change of a held pet names its adoption).
 */

const CUSTOMERS = 3;
const PETS = 4;
const OPEN_PER_ADOPTER = 2;
const RUNS = 10;
const MIN_STEPS = 5;
const MAX_STEPS = 20;

jest.setTimeout(240_000);

type PetStatus = 'available' | 'pending' | 'sold';
type AdoptionStatus =
  'requested' | 'approved' | 'completed' | 'rejected' | 'cancelled' | 'expired' | 'returned';
type Move = 'approve' | 'complete' | 'reject' | 'cancel' | 'return' | 'extend';
type Actor = 'staff' | 'adopter' | 'other';

const OPEN: AdoptionStatus[] = ['requested', 'approved'];

/** Contract section 9's table: from, to (none: stays), the pet's move. */
const TABLE: Record<
  Move,
  { from: AdoptionStatus[]; to?: AdoptionStatus; pet?: [PetStatus, PetStatus] }
> = {
  approve: { from: ['requested'], to: 'approved' },
  complete: { from: ['approved'], to: 'completed', pet: ['pending', 'sold'] },
  reject: { from: OPEN, to: 'rejected', pet: ['pending', 'available'] },
  cancel: { from: OPEN, to: 'cancelled', pet: ['pending', 'available'] },
  return: { from: ['completed'], to: 'returned', pet: ['sold', 'available'] },
  extend: { from: OPEN },
};

/** Section 4's status moves by PUT, besides staying put. */
const PUT_MOVES: Record<PetStatus, PetStatus[]> = {
  available: ['pending'],
  pending: ['sold', 'available'],
  sold: ['available'],
};

const MOVES = Object.keys(TABLE) as Move[];

/** A move the table allows from `status`, or any move from a status with none. */
function nextMove(status: AdoptionStatus, pick: number): Move {
  const allowed = MOVES.filter((move) => TABLE[move].from.includes(status));
  const from = allowed.length > 0 ? allowed : MOVES;
  return from[pick % from.length];
}

type Step =
  | { kind: 'request'; customer: number; pet: number; byStaff: boolean }
  /** `next`: one of the moves the model allows from the adoption's status (the `pick`th). */
  | { kind: 'move'; adoption: number; move: Move | 'next'; pick: number; actor: Actor }
  | { kind: 'expire'; adoption: number }
  | { kind: 'put'; pet: number; status?: PetStatus }
  | { kind: 'delete'; pet: number };

const petIndex = fc.nat({ max: PETS - 1 });
/** An adoption of the run, the nth latest (modulo how many there are): mostly the latest. */
const adoptionIndex = fc.oneof(
  { weight: 3, arbitrary: fc.constant(0) },
  { weight: 2, arbitrary: fc.nat({ max: 5 }) },
);
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('request' as const),
      customer: fc.nat({ max: CUSTOMERS - 1 }),
      pet: petIndex,
      byStaff: fc.boolean(),
    }),
  },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('move' as const),
      adoption: adoptionIndex,
      move: fc.constantFrom<Move | 'next'>(
        'approve',
        'complete',
        'reject',
        'cancel',
        'return',
        'extend',
        'next',
        'next',
        'next',
      ),
      pick: fc.nat({ max: 3 }),
      actor: fc.constantFrom<Actor>('staff', 'staff', 'staff', 'staff', 'adopter', 'other'),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('expire' as const), adoption: adoptionIndex }),
  },
  {
    weight: 2,
    arbitrary: fc.record(
      {
        kind: fc.constant('put' as const),
        pet: petIndex,
        status: fc.constantFrom<PetStatus>('available', 'pending', 'sold'),
      },
      { requiredKeys: ['kind', 'pet'] },
    ),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), pet: petIndex }) },
);

interface ModelPet {
  id: number;
  status: PetStatus;
  deleted: boolean;
  /** Its status changes, oldest first: [to, the adoption that made it]. */
  moves: [PetStatus, number | null][];
}

interface ModelAdoption {
  id: number;
  pet: number;
  customer: number;
  status: AdoptionStatus;
}

/** One run's pets (in a category of their own) and adoptions. */
interface Run {
  category: string;
  pets: ModelPet[];
  adoptions: ModelAdoption[];
  openOf: (pet: ModelPet) => ModelAdoption | undefined;
}

interface ListedAdoption {
  id: number;
  status: AdoptionStatus;
  pet: { id: number; status: string };
}

const byId = (a: (number | string)[], b: (number | string)[]) => Number(a[0]) - Number(b[0]);

/** What the model expects of one request: the status, and the error code if any. */
interface Expected {
  status: number;
  code?: string;
}

describe('Adoptions under random sequences (e2e, property)', () => {
  let t: TestApp;
  let customers: CreatedUser[];

  beforeAll(async () => {
    t = await createTestApp({
      ADOPTIONS_OPEN_PER_ADOPTER: String(OPEN_PER_ADOPTER),
      OUTBOX_POLL_INTERVAL_MS: '50',
    });
    customers = [];
    for (let i = 0; i < CUSTOMERS; i += 1) {
      customers.push(await createUser(t, { role: 'customer' }));
    }
  });
  afterAll(async () => {
    await t?.close();
  });

  /** Each run starts with no open adoption: those an earlier run left are cancelled. */
  async function cancelOpenAdoptions(): Promise<void> {
    const open = await t.http
      .get('/v1/adoptions?status=requested&status=approved&limit=100')
      .set(t.user)
      .expect(200);
    for (const { id } of open.body.adoptions as { id: number }[]) {
      await t.http.post(`/v1/adoptions/${id}/cancel`).set(t.user).expect(200);
    }
  }

  function expectAnswer(res: Response, expected: Expected, step: Step): void {
    const got = { status: res.status, code: (res.body as { code?: string }).code };
    expect({ step, ...got }).toEqual({ step, ...expected, code: expected.code });
  }

  let runs = 0;

  /** A run's pets, available, in a category of their own. */
  async function newRun(): Promise<Run> {
    runs += 1;
    const category = `Run ${runs}`;
    const { body } = await t.http
      .post('/v1/categories')
      .set(t.admin)
      .send({ name: category })
      .expect(201);
    const pets: ModelPet[] = [];
    for (let i = 0; i < PETS; i += 1) {
      const pet = await t.http
        .post('/v1/pets')
        .set(t.user)
        .send({ name: 'Rex', categoryId: body.id, status: 'available' })
        .expect(201);
      pets.push({ id: pet.body.id, status: 'available', deleted: false, moves: [] });
    }
    const adoptions: ModelAdoption[] = [];
    return {
      category,
      pets,
      adoptions,
      openOf: (pet) => adoptions.find((a) => a.pet === pet.id && OPEN.includes(a.status)),
    };
  }

  async function run(steps: Step[]): Promise<void> {
    await cancelOpenAdoptions();
    const current = await newRun();
    const { pets, adoptions, openOf } = current;
    const openCount = (customer: number) =>
      adoptions.filter((a) => a.customer === customer && OPEN.includes(a.status)).length;
    const petOf = (adoption: ModelAdoption) => pets.find((p) => p.id === adoption.pet)!;
    const movePet = (pet: ModelPet, to: PetStatus, adoptionId: number | null) => {
      pet.status = to;
      pet.moves.push([to, adoptionId]);
    };

    for (const step of steps) {
      let touched: ModelPet | undefined;
      switch (step.kind) {
        case 'request': {
          const pet = (touched = pets[step.pet]);
          const customer = customers[step.customer];
          const res = step.byStaff
            ? await t.http
                .post('/v1/adoptions')
                .set(t.user)
                .send({ petId: pet.id, adopterId: customer.id })
            : await t.http.post('/v1/adoptions').set(customer.headers).send({ petId: pet.id });
          const expected: Expected =
            openCount(step.customer) >= OPEN_PER_ADOPTER
              ? { status: 409, code: 'ADOPTION_LIMIT_REACHED' }
              : pet.deleted
                ? { status: 404, code: 'PET_NOT_FOUND' }
                : pet.status !== 'available'
                  ? { status: 409, code: 'PET_NOT_AVAILABLE' }
                  : { status: 201 };
          expectAnswer(res, expected, step);
          if (expected.code === 'PET_NOT_AVAILABLE') {
            expect(res.body.details).toEqual({ status: pet.status });
          }
          if (res.status === 201) {
            const id = res.body.id as number;
            adoptions.push({ id, pet: pet.id, customer: step.customer, status: 'requested' });
            movePet(pet, 'pending', id);
          }
          break;
        }
        case 'move': {
          if (adoptions.length === 0) break;
          const adoption = adoptions[adoptions.length - 1 - (step.adoption % adoptions.length)];
          const pet = (touched = petOf(adoption));
          const headers =
            step.actor === 'staff'
              ? t.user
              : customers[(adoption.customer + (step.actor === 'other' ? 1 : 0)) % CUSTOMERS]
                  .headers;
          const move = step.move === 'next' ? nextMove(adoption.status, step.pick) : step.move;
          const req = t.http.post(`/v1/adoptions/${adoption.id}/${move}`).set(headers);
          const res = await (move === 'extend' ? req.send({ hours: 2 }) : req);
          const rule = TABLE[move];
          const expected: Expected =
            step.actor !== 'staff' && move !== 'cancel'
              ? { status: 403, code: 'INSUFFICIENT_PERMISSIONS' }
              : pet.deleted || step.actor === 'other'
                ? { status: 404, code: 'ADOPTION_NOT_FOUND' }
                : !rule.from.includes(adoption.status)
                  ? { status: 409, code: 'INVALID_ADOPTION_TRANSITION' }
                  : rule.pet && pet.status !== rule.pet[0]
                    ? { status: 409, code: 'PET_NOT_AVAILABLE' }
                    : { status: 200 };
          expectAnswer(res, expected, step);
          if (res.status === 200) {
            adoption.status = rule.to ?? adoption.status;
            if (rule.pet) movePet(pet, rule.pet[1], adoption.id);
            expect(res.body).toMatchObject({
              status: adoption.status,
              pet: { id: pet.id, status: pet.status },
            });
          }
          break;
        }
        case 'expire': {
          if (adoptions.length === 0) break;
          const adoption = adoptions[adoptions.length - 1 - (step.adoption % adoptions.length)];
          const pet = (touched = petOf(adoption));
          if (pet.deleted) break;
          const query = (sql: string, params: unknown[]) => t.dataSource.query(sql, params);
          await holdPasses(query, adoption.id);
          await waitFor(async () => (await queuedExpiries(query, adoption.id)) === 0, 10_000);
          if (OPEN.includes(adoption.status)) {
            adoption.status = 'expired';
            movePet(pet, 'available', adoption.id);
          }
          break;
        }
        case 'put': {
          const pet = (touched = pets[step.pet]);
          const body = step.status ? { status: step.status } : { name: `Rex ${pets.length}` };
          const res = await t.http.put(`/v1/pets/${pet.id}`).set(t.user).send(body);
          const expected: Expected = pet.deleted
            ? { status: 404, code: 'PET_NOT_FOUND' }
            : !step.status
              ? { status: 200 }
              : openOf(pet)
                ? { status: 409, code: 'PET_HAS_OPEN_ADOPTION' }
                : step.status !== pet.status && !PUT_MOVES[pet.status].includes(step.status)
                  ? { status: 409, code: 'INVALID_STATUS_TRANSITION' }
                  : { status: 200 };
          expectAnswer(res, expected, step);
          if (res.status === 200 && step.status && step.status !== pet.status) {
            movePet(pet, step.status, null);
          }
          break;
        }
        case 'delete': {
          const pet = (touched = pets[step.pet]);
          const res = await t.http.delete(`/v1/pets/${pet.id}`).set(t.admin);
          const expected: Expected = pet.deleted
            ? { status: 404, code: 'PET_NOT_FOUND' }
            : openOf(pet)
              ? { status: 409, code: 'PET_HAS_OPEN_ADOPTION' }
              : { status: 200 };
          expectAnswer(res, expected, step);
          if (res.status === 200) pet.deleted = true;
          break;
        }
      }
      await expectModel(current, touched ? [touched] : [], step);
    }
    await expectModel(current, pets, 'end');
  }

  /**
   * The service's state, read over HTTP, is the model's: every pet's status and every
   * adoption of the run (one list each), and the `touched` pets' open adoption and status
   * history.
   */
  async function expectModel(run: Run, touched: ModelPet[], step: Step | 'end'): Promise<void> {
    const listedPets = await t.http
      .get('/v1/pets')
      .query({ category: run.category, limit: 100 })
      .set(t.user)
      .expect(200);
    const listed = await t.http.get('/v1/adoptions?limit=100').set(t.user).expect(200);
    const ofRun = (listed.body.adoptions as ListedAdoption[]).filter((a) =>
      run.pets.some((pet) => pet.id === a.pet.id),
    );
    const open = ofRun.filter((a) => OPEN.includes(a.status));
    expect({
      step,
      pets: (listedPets.body.pets as { id: number; status: string }[])
        .map((pet) => [pet.id, pet.status])
        .sort(byId),
      adoptions: ofRun.map((a) => [a.id, a.pet.id, a.status]),
      // A pet has at most one open adoption, and is pending while it has one.
      openPets: open.map((a) => a.pet.id).sort(),
      openPetStatuses: open.map((a) => a.pet.status),
    }).toEqual({
      step,
      pets: run.pets
        .filter((pet) => !pet.deleted)
        .map((pet) => [pet.id, pet.status])
        .sort(byId),
      adoptions: run.adoptions
        .filter((a) => !run.pets.find((pet) => pet.id === a.pet)!.deleted)
        .reverse()
        .map((a) => [a.id, a.pet, a.status]),
      openPets: [...new Set(open.map((a) => a.pet.id))].sort(),
      openPetStatuses: open.map(() => 'pending'),
    });

    for (const pet of touched.filter((p) => !p.deleted)) {
      const read = await t.http.get(`/v1/pets/${pet.id}`).set(t.user).expect(200);
      const history = await t.http
        .get(`/v1/pets/${pet.id}/history?limit=100`)
        .set(t.user)
        .expect(200);
      const held = run.openOf(pet);
      expect({
        step,
        pet: pet.id,
        adoption: read.body.adoption as unknown,
        // Every status change, newest first: each one made while the pet was held names its
        // adoption, and no other change happened.
        moves: (history.body.events as { type: string; to?: string; adoptionId?: number }[])
          .filter((event) => event.type === 'pet.status_changed')
          .map((event) => [event.to, event.adoptionId ?? null]),
      }).toEqual({
        step,
        pet: pet.id,
        adoption: held && { id: held.id, status: held.status, holdExpiresAt: expect.any(String) },
        moves: [...pet.moves].reverse(),
      });
    }
  }

  it('should keep every pet, adoption and answer as the model says, whatever the sequence', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: MIN_STEPS, maxLength: MAX_STEPS }), run),
      { numRuns: RUNS, endOnFailure: true },
    );
  });
});
