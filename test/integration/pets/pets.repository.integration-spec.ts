import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { constraintErrorOf } from '../../../src/common/errors/constraint-errors.js';
import type { Role } from '../../../src/common/types/principal.js';
import type { PetActor } from '../../../src/pets/pet-actor.js';
import { PetEventsRepository } from '../../../src/pets/pet-events.repository.js';
import {
  petRowOfSnapshot,
  type PetEvent,
  type PetEventType,
  type PetSnapshot,
} from '../../../src/pets/pet-events.js';
import type { PetStatus } from '../../../src/pets/pet-status.js';
import { PetsRepository } from '../../../src/pets/pets.repository.js';
import type { PetRow } from '../../../src/pets/sql/pet-reads.sql.js';
import type { PetListFilters } from '../../../src/pets/sql/pet-search.sql.js';
import type { PetWriteFields } from '../../../src/pets/sql/pet-writes.sql.js';
import {
  createRepositoryHarness,
  type RepositoryHarness,
} from '../../support/repository-harness.js';

const ACTOR: PetActor = { userId: 7, apiKeyPrefix: 'pk_live_ab12', role: 'user' };
const OTHER_ACTOR: PetActor = { userId: 8, apiKeyPrefix: null, role: 'admin' };
const MAX_PHOTOS = 2;
/** An event's id: `evt_` and 32 hex digits. */
const EVT_ID = /^evt_[0-9a-f]{32}$/;

/** The pet as an event carries it. */
const snapshotOf = (pet: PetRow): PetSnapshot => ({
  ...pet,
  createdAt: pet.createdAt.toISOString(),
  updatedAt: pet.updatedAt.toISOString(),
});

/**
 * An event with its snapshot as the PetRow it holds: SQL writes a snapshot's dates in
 * PostgreSQL's JSON form, a write's answer in JavaScript's, for the same instants.
 */
const comparable = ({ pet, ...event }: PetEvent) => ({ ...event, pet: petRowOfSnapshot(pet) });

/** A row of `pet_events`, the snapshot as its PetRow. */
interface RecordedRow {
  sequence: number;
  id: string;
  type: PetEventType;
  petId: number;
  occurredAt: Date;
  actorUserId: number | null;
  actorApiKeyPrefix: string | null;
  actorRole: Role | null;
  changedFields: string[] | null;
  statusFrom: PetStatus | null;
  statusTo: PetStatus | null;
  adoptionId: number | null;
  pet: PetRow;
}

/** What a write's event says `pet_events` holds. */
function rowOf(event: PetEvent): RecordedRow {
  const { subject, occurredAt, pet, actorRole, ...columns } = event;
  return {
    ...columns,
    actorRole: actorRole ?? null,
    occurredAt: new Date(occurredAt),
    pet: petRowOfSnapshot(pet),
  };
}

/** Both repositories on one database, emptied before each test. */
let harness: RepositoryHarness;
let categoriesMade = 0;

/** A category made with SQL, as the categories module would; its id. */
async function category(
  name = `Category ${(categoriesMade += 1)}`,
  description: string | null = null,
) {
  const [{ id }] = await harness.query<{ id: number }>(
    'INSERT INTO categories (name, description) VALUES ($1, $2) RETURNING id',
    [name, description],
  );
  return id;
}

/** A pet inserted by the repository, as PetsService creates one (new tags upserted first). */
async function insert(
  categoryId: number,
  fields: PetWriteFields = {},
  tags: string[] = [],
  actor = ACTOR,
): Promise<PetRow> {
  const pets = harness.get(PetsRepository);
  const { pet } = await harness.transaction(async () => {
    if (tags.length) await pets.upsertTags(tags);
    return pets.insert(
      { name: 'Rex', categoryId, status: 'available', photoUrls: [], ...fields },
      tags,
      actor,
    );
  });
  return pet;
}

/** The pet's rows of `pet_events`, oldest first. */
async function recorded(petId: number): Promise<RecordedRow[]> {
  const rows = await harness.query<Omit<RecordedRow, 'pet'> & { pet: PetSnapshot }>(
    `SELECT sequence, id, type, pet_id AS "petId", occurred_at AS "occurredAt",
            actor_user_id AS "actorUserId", actor_api_key_prefix AS "actorApiKeyPrefix",
            actor_role AS "actorRole",
            changed_fields AS "changedFields", status_from AS "statusFrom",
            status_to AS "statusTo", adoption_id AS "adoptionId", pet
       FROM pet_events WHERE pet_id = $1 ORDER BY sequence`,
    [petId],
  );
  return rows.map((row) => ({ ...row, pet: petRowOfSnapshot(row.pet) }));
}

const setPet = (id: number, assignment: string, params: unknown[] = []) =>
  harness.query(`UPDATE pets SET ${assignment} WHERE id = $1`, [id, ...params]);

beforeAll(async () => {
  harness = await createRepositoryHarness([PetsRepository, PetEventsRepository]);
});
afterAll(async () => {
  await harness?.close();
});
beforeEach(async () => {
  // Their tag links go with the pets, the counters with the categories (ON DELETE CASCADE).
  await harness.query('DELETE FROM pets');
  await harness.query('DELETE FROM categories');
  await harness.query('DELETE FROM tags');
  await harness.query('DELETE FROM pet_events');
});

describe(PetsRepository.name, () => {
  let sut: PetsRepository;

  beforeAll(() => {
    sut = harness.get(PetsRepository);
  });

  describe('findPage', () => {
    const page = async (filters: PetListFilters) => {
      const { pets, total } = await sut.findPage(filters);
      return { names: pets.map((pet) => pet.name), total };
    };

    it('should list pets newest first by creation, ties by id descending, each in the read shape', async () => {
      const dogs = await category('Dogs', 'Loyal companions');
      const [oldest, tiedLow, tiedHigh, insertedLast] = [
        await insert(dogs, { name: 'Oldest' }),
        await insert(dogs, { name: 'Tied, lower id' }, ['friendly']),
        await insert(dogs, { name: 'Tied, higher id' }),
        await insert(dogs, { name: 'Inserted last, created before the tie' }),
      ];
      const tie = new Date('2026-01-01T12:00:00.000Z');
      for (const [pet, offsetMs] of [
        [oldest, -120_000],
        [tiedLow, 0],
        [tiedHigh, 0],
        [insertedLast, -60_000],
      ] as const) {
        await setPet(pet.id, 'created_at = $2', [new Date(tie.getTime() + offsetMs)]);
      }

      const { pets, total } = await sut.findPage({ limit: 10, offset: 0 });

      expect(pets.map((pet) => pet.name)).toEqual([
        'Tied, higher id',
        'Tied, lower id',
        'Inserted last, created before the tie',
        'Oldest',
      ]);
      expect(total).toBe(4);
      expect(pets[1]).toEqual(expect.objectContaining((await sut.findById(tiedLow.id))!));
    });

    it('should filter by category name whatever its case, and by status, the total too', async () => {
      const [dogs, cats] = [await category('Dogs'), await category('Cats')];
      await insert(dogs, { name: 'Rex' });
      await insert(dogs, { name: 'Fido', status: 'pending' });
      await insert(cats, { name: 'Tom' });
      await insert(cats, { name: 'Felix', status: 'sold' });

      expect(await page({ category: 'dOGS', limit: 10, offset: 0 })).toEqual({
        names: ['Fido', 'Rex'],
        total: 2,
      });
      expect(await page({ status: 'available', limit: 10, offset: 0 })).toEqual({
        names: ['Tom', 'Rex'],
        total: 2,
      });
      expect(await page({ category: 'cats', status: 'sold', limit: 10, offset: 0 })).toEqual({
        names: ['Felix'],
        total: 1,
      });
      expect(await page({ category: 'Birds', limit: 10, offset: 0 })).toEqual({
        names: [],
        total: 0,
      });
    });

    it('should page by offset, and by the `after` key of the last pet of the page before', async () => {
      const dogs = await category();
      const pets: PetRow[] = [];
      for (const name of ['P1', 'P2', 'P3', 'P4', 'P5']) pets.push(await insert(dogs, { name }));
      const after = (pet: PetRow) => ({ key: pet.createdAt.toISOString(), id: pet.id });

      expect(await page({ limit: 2, offset: 0 })).toEqual({ names: ['P5', 'P4'], total: 5 });
      expect(await page({ limit: 2, offset: 2 })).toEqual({ names: ['P3', 'P2'], total: 5 });
      // With `after`, the offset is where the page starts (for the total) and skips nothing.
      expect(await page({ limit: 2, offset: 2, after: after(pets[3]) })).toEqual({
        names: ['P3', 'P2'],
        total: 5,
      });
      expect(await page({ limit: 2, offset: 4, after: after(pets[1]) })).toEqual({
        names: ['P1'],
        total: 5,
      });
    });

    it('should still count the matches on an empty page past the end', async () => {
      const [dogs, cats] = [await category('Dogs'), await category('Cats')];
      const [oldest] = [await insert(dogs), await insert(dogs), await insert(cats)];
      const afterOldest = { key: oldest.createdAt.toISOString(), id: oldest.id };

      expect(await page({ limit: 10, offset: 3 })).toEqual({ names: [], total: 3 });
      expect(await page({ category: 'dogs', limit: 10, offset: 5 })).toEqual({
        names: [],
        total: 2,
      });
      expect(await page({ limit: 10, offset: 3, after: afterOldest })).toEqual({
        names: [],
        total: 3,
      });
      expect(await page({ category: 'Birds', limit: 10, offset: 5 })).toEqual({
        names: [],
        total: 0,
      });
    });

    it('should take the total from the counters (pet_counts), never by counting pets', async () => {
      const dogs = await category('Dogs');
      await insert(dogs, { name: 'Rex' });
      await insert(dogs, { name: 'Fido', status: 'pending' });
      // Counters that disagree with the rows show where the total comes from.
      await harness.query(
        `UPDATE pet_counts SET count = count + 10 WHERE category_id = $1 AND status = 'pending'`,
        [dogs],
      );

      expect(await page({ limit: 10, offset: 0 })).toEqual({ names: ['Fido', 'Rex'], total: 12 });
      expect(await page({ status: 'available', limit: 10, offset: 0 })).toEqual({
        names: ['Rex'],
        total: 1,
      });
      expect(await page({ category: 'Dogs', status: 'pending', limit: 10, offset: 20 })).toEqual({
        names: [],
        total: 11,
      });
    });
  });

  describe('inventory', () => {
    it('should count every category’s pets by status, by category name, with zeros for those without', async () => {
      const [dogs, birds, cats] = [
        await category('Dogs'),
        await category('Birds'),
        await category('Cats'),
      ];
      await insert(dogs);
      await insert(dogs);
      await insert(dogs, { status: 'sold' });
      await insert(cats, { status: 'pending' });
      await sut.delete((await insert(cats)).id, ACTOR);

      expect(await sut.inventory()).toEqual([
        { id: birds, name: 'Birds', available: 0, pending: 0, sold: 0 },
        { id: cats, name: 'Cats', available: 0, pending: 1, sold: 0 },
        { id: dogs, name: 'Dogs', available: 2, pending: 0, sold: 1 },
      ]);
    });
  });

  describe('findById', () => {
    it('should read the pet with its category, its tags by name and its version tag', async () => {
      const dogs = await category('Dogs', 'Loyal companions');
      const { id } = await insert(
        dogs,
        { photoUrls: ['https://img.example/rex.jpg'], age: 3, breed: 'Labrador' },
        ['friendly', 'calm'],
      );
      const tags = await harness.query<{ id: number; name: string }>(
        'SELECT id, name FROM tags ORDER BY name',
      );

      expect(await sut.findById(id)).toEqual({
        id,
        name: 'Rex',
        status: 'available',
        photoUrls: ['https://img.example/rex.jpg'],
        age: 3,
        breed: 'Labrador',
        description: null,
        externalId: null,
        createdAt: expect.any(Date),
        updatedAt: expect.any(Date),
        categoryId: dogs,
        categoryName: 'Dogs',
        categoryDescription: 'Loyal companions',
        tags,
        versionTag: '1.1',
        heldBy: null,
      });
      expect(tags.map((tag) => tag.name)).toEqual(['calm', 'friendly']);
    });

    it('should find nothing for an unknown id', async () => {
      const { id } = await insert(await category());

      expect(await sut.findById(id + 1_000)).toBeUndefined();
    });
  });

  describe('insert', () => {
    it('should write the pet, answer it in the read shape, and record pet.created by the actor', async () => {
      const dogs = await category('Dogs');

      const { pet, events } = await harness.transaction(() =>
        sut.insert(
          { name: 'Rex', categoryId: dogs, status: 'available', photoUrls: [] },
          [],
          ACTOR,
        ),
      );

      expect(pet).toEqual(await sut.findById(pet.id));
      expect(pet).toEqual(expect.objectContaining({ tags: [], versionTag: '1.1' }));
      expect(events).toEqual([
        {
          type: 'pet.created',
          subject: `pet:${pet.id}`,
          sequence: expect.any(Number),
          id: expect.stringMatching(EVT_ID),
          petId: pet.id,
          occurredAt: pet.updatedAt.toISOString(),
          actorUserId: ACTOR.userId,
          actorApiKeyPrefix: ACTOR.apiKeyPrefix,
          actorRole: ACTOR.role,
          changedFields: null,
          statusFrom: null,
          statusTo: null,
          adoptionId: null,
          pet: snapshotOf(pet),
        },
      ]);
      expect(await recorded(pet.id)).toEqual(events.map(rowOf));
    });

    it('should link the tags it is given, and carry them in the event', async () => {
      const dogs = await category();

      const { pet, events } = await harness.transaction(async () => {
        await sut.upsertTags(['friendly', 'calm']);
        return sut.insert(
          { name: 'Rex', categoryId: dogs, status: 'available', photoUrls: [] },
          ['friendly', 'calm'],
          OTHER_ACTOR,
        );
      });

      expect(pet.tags.map((tag) => tag.name)).toEqual(['calm', 'friendly']);
      expect(pet).toEqual(await sut.findById(pet.id));
      expect(events.map((event) => event.pet)).toEqual([snapshotOf(pet)]);
      expect(await recorded(pet.id)).toEqual(events.map(rowOf));
    });

    it('should refuse an unknown category with a violation answered 400 on categoryId, writing and recording nothing', async () => {
      const missing = (await category()) + 1_000;

      const error = await sut
        .insert({ name: 'Rex', categoryId: missing, status: 'available' }, [], ACTOR)
        .catch((refused: unknown) => refused);

      expect(constraintErrorOf(error)?.details).toEqual({
        fields: [{ field: 'categoryId', message: `category ${missing} does not exist` }],
      });

      const [counts] = await harness.query<{ pets: number; events: number }>(
        `SELECT (SELECT count(*) FROM pets)::int AS pets,
                (SELECT count(*) FROM pet_events)::int AS events`,
      );
      expect(counts).toEqual({ pets: 0, events: 0 });
    });
  });

  describe('insertMany', () => {
    it('should write each pet and its tags, answer them in order in the read shape, and record each one’s pet.created by the actor', async () => {
      const dogs = await category('Dogs');
      const cats = await category('Cats');

      const writes = await harness.transaction(async () => {
        await sut.upsertTags(['friendly', 'calm']);
        return sut.insertMany(
          [
            {
              fields: {
                name: 'Rex',
                categoryId: dogs,
                status: 'available',
                photoUrls: ['https://example.com/rex.jpg'],
                age: 3,
                breed: 'Labrador',
                description: 'Fetches',
                externalId: 'SKU-1',
              },
              tags: ['friendly', 'calm', 'friendly'],
            },
            { fields: { name: 'Tom', categoryId: cats, status: 'sold', photoUrls: [] }, tags: [] },
          ],
          ACTOR,
        );
      });

      expect(writes.map(({ pet }) => [pet.name, pet.tags.map((tag) => tag.name)])).toEqual([
        ['Rex', ['calm', 'friendly']],
        ['Tom', []],
      ]);
      for (const { pet, events } of writes) {
        expect(pet).toEqual(await sut.findById(pet.id));
        expect(events).toEqual([
          expect.objectContaining({
            type: 'pet.created',
            subject: `pet:${pet.id}`,
            id: expect.stringMatching(EVT_ID),
            petId: pet.id,
            occurredAt: pet.updatedAt.toISOString(),
            actorUserId: ACTOR.userId,
            actorApiKeyPrefix: ACTOR.apiKeyPrefix,
            actorRole: ACTOR.role,
            pet: snapshotOf(pet),
          }),
        ]);
        expect(await recorded(pet.id)).toEqual(events.map(rowOf));
      }
      expect(writes[0].pet).toEqual(
        expect.objectContaining({ externalId: 'SKU-1', age: 3, versionTag: '1.1' }),
      );
    });

    it('should leave the counters and search documents as single inserts of the same pets do', async () => {
      const dogs = await category('Dogs');
      const fields = { name: 'Rex', categoryId: dogs, status: 'available', photoUrls: [], age: 2 };
      const single = await insert(dogs, fields, ['calm']);
      const counters = () =>
        harness.query(
          `SELECT (SELECT sum(count) FROM pet_counts)::int AS pets,
                  (SELECT sum(count) FROM tag_counts)::int AS links,
                  (SELECT array_agg(DISTINCT pet_age) FROM pet_tags) AS ages`,
        );
      const document = (id: number) =>
        harness.query(
          'SELECT document::text, status, tag_ids::text FROM pet_documents WHERE pet_id = $1',
          [id],
        );
      const [one] = await counters();

      const [{ pet }] = await harness.transaction(() =>
        sut.insertMany([{ fields, tags: ['calm'] }], ACTOR),
      );

      expect(await counters()).toEqual([{ pets: 2, links: 2, ages: [2] }]);
      expect(one).toEqual({ pets: 1, links: 1, ages: [2] });
      expect(await document(pet.id)).toEqual(await document(single.id));
      expect(await document(pet.id)).toHaveLength(1);
    });

    it('should refuse the whole statement on an externalId another pet holds, answered as a create’s 409, writing nothing', async () => {
      const dogs = await category();
      await insert(dogs, { externalId: 'SKU-1' });

      const error = await harness
        .transaction(() =>
          sut.insertMany(
            [
              { fields: { name: 'Ada', categoryId: dogs, status: 'available' }, tags: [] },
              {
                fields: { name: 'Rex', categoryId: dogs, status: 'available', externalId: 'SKU-1' },
                tags: [],
              },
            ],
            ACTOR,
          ),
        )
        .catch((refused: unknown) => refused);

      expect(constraintErrorOf(error)?.code).toBe('EXTERNAL_ID_TAKEN');
      const [counts] = await harness.query<{ pets: number; events: number }>(
        `SELECT (SELECT count(*) FROM pets)::int AS pets,
                (SELECT count(*) FROM pet_events)::int AS events`,
      );
      expect(counts).toEqual({ pets: 1, events: 1 });
    });

    it('should refuse an unknown category with a violation answered 400 on categoryId', async () => {
      const missing = (await category()) + 1_000;

      const error = await sut
        .insertMany(
          [{ fields: { name: 'Rex', categoryId: missing, status: 'available' }, tags: [] }],
          ACTOR,
        )
        .catch((refused: unknown) => refused);

      expect(constraintErrorOf(error)?.details).toEqual({
        fields: [{ field: 'categoryId', message: `category ${missing} does not exist` }],
      });
    });
  });

  describe('update', () => {
    it('should name the fields whose value it changed, compared as values (null, lists), in the request’s order', async () => {
      const [dogs, cats] = [await category(), await category()];
      const { id } = await insert(dogs, { photoUrls: ['a.jpg', 'b.jpg'], breed: 'Labrador' });
      const changedBy = async (fields: PetWriteFields) =>
        (await sut.update(id, fields, {}, undefined))?.changes.changedFields;

      expect(
        await changedBy({
          description: 'Calm',
          age: 3,
          photoUrls: ['a.jpg', 'b.jpg'],
          name: 'Rex',
          categoryId: cats,
          breed: 'Labrador',
        }),
      ).toEqual(['categoryId', 'age', 'description']);
      expect(await changedBy({ photoUrls: ['b.jpg', 'a.jpg'], age: 3 })).toEqual(['photoUrls']);
      expect(await changedBy({ breed: null, description: 'Calm' })).toEqual(['breed']);
      expect(await changedBy({ breed: null, age: null })).toEqual(['age']);
      expect(await changedBy({ breed: 'Beagle', status: 'pending' })).toEqual(['breed']);
    });

    it('should answer the pet as updated and the status it moved from, recording nothing without `recordAs`', async () => {
      const { id } = await insert(await category());

      const updated = await sut.update(id, { name: 'Max', status: 'pending' }, {}, undefined);

      expect(updated).toEqual({
        pet: await sut.findById(id),
        events: [],
        changes: { changedFields: ['name'], statusFrom: 'available' },
      });
      expect(updated?.pet).toEqual(
        expect.objectContaining({ name: 'Max', status: 'pending', versionTag: '2.1' }),
      );
      expect((await recorded(id)).map((row) => row.type)).toEqual(['pet.created']);
    });

    it('should name the adoption a move to pending was made through, and forget it at the next move', async () => {
      const { id } = await insert(await category());
      const move = (from: PetStatus, to: PetStatus, actor: PetActor) =>
        harness.transaction(() => sut.update(id, { status: to }, { fromStatuses: [from] }, actor));

      expect(
        (await move('available', 'pending', { ...OTHER_ACTOR, adoptionId: 41 }))?.pet.heldBy,
      ).toBe(41);
      expect((await sut.findById(id))?.heldBy).toBe(41);
      expect(
        (await move('pending', 'available', { ...OTHER_ACTOR, adoptionId: 41 }))?.pet.heldBy,
      ).toBeNull();
      expect((await move('available', 'pending', OTHER_ACTOR))?.pet.heldBy).toBeNull();
    });

    it('should record pet.updated, then pet.status_changed, by `recordAs`', async () => {
      const { id } = await insert(await category());

      const updated = await harness.transaction(() =>
        sut.update(id, { name: 'Max', status: 'pending' }, {}, OTHER_ACTOR),
      );

      const pet = (await sut.findById(id))!;
      const common = {
        subject: `pet:${id}`,
        sequence: expect.any(Number),
        id: expect.stringMatching(EVT_ID),
        petId: id,
        occurredAt: pet.updatedAt.toISOString(),
        actorUserId: OTHER_ACTOR.userId,
        actorApiKeyPrefix: null,
        actorRole: OTHER_ACTOR.role,
        pet: snapshotOf(pet),
      };
      expect(updated?.events).toEqual([
        {
          ...common,
          type: 'pet.updated',
          changedFields: ['name'],
          statusFrom: null,
          statusTo: null,
          adoptionId: null,
        },
        {
          ...common,
          type: 'pet.status_changed',
          changedFields: null,
          statusFrom: 'available',
          statusTo: 'pending',
          adoptionId: null,
        },
      ]);
      const [updatedEvent, moved] = updated!.events;
      expect(moved.sequence).toBeGreaterThan(updatedEvent.sequence);
      expect((await recorded(id)).slice(1)).toEqual(updated!.events.map(rowOf));
    });

    it('should record only the kind of change made: a move alone, or fields alone', async () => {
      const { id } = await insert(await category());

      const moved = await sut.update(id, { status: 'pending' }, {}, ACTOR);
      const renamed = await sut.update(id, { name: 'Max', status: 'pending' }, {}, ACTOR);

      expect(moved?.events.map((e) => [e.type, e.statusFrom, e.statusTo])).toEqual([
        ['pet.status_changed', 'available', 'pending'],
      ]);
      expect(renamed?.events.map((e) => [e.type, e.changedFields])).toEqual([
        ['pet.updated', ['name']],
      ]);
    });

    it('should record nothing for an update that changed nothing', async () => {
      const { id } = await insert(await category(), { age: 3 });

      const updated = await sut.update(id, { name: 'Rex', age: 3, status: 'available' }, {}, ACTOR);

      expect(updated?.events).toEqual([]);
      expect(updated?.changes).toEqual({ changedFields: [], statusFrom: 'available' });
      expect((await recorded(id)).map((row) => row.type)).toEqual(['pet.created']);
    });

    it('should update nothing, and answer nothing, when the pet’s status is not one it may move from', async () => {
      const { id } = await insert(await category());
      const before = await sut.findById(id);

      expect(
        await sut.update(id, { status: 'sold' }, { fromStatuses: ['pending'] }, ACTOR),
      ).toBeUndefined();

      expect(await sut.findById(id)).toEqual(before);
      expect((await recorded(id)).map((row) => row.type)).toEqual(['pet.created']);
      const moved = await sut.update(
        id,
        { status: 'pending' },
        { fromStatuses: ['available', 'sold'] },
        ACTOR,
      );
      expect(moved?.pet.status).toBe('pending');
    });

    it('should update nothing, and answer nothing, when the pet’s version tag is none of those given', async () => {
      const { id } = await insert(await category());
      const before = await sut.findById(id);

      expect(
        await sut.update(id, { name: 'Max' }, { versionTags: ['2.1', '1.2'] }, ACTOR),
      ).toBeUndefined();

      expect(await sut.findById(id)).toEqual(before);
      const updated = await sut.update(id, { name: 'Max' }, { versionTags: ['0.1', '1.1'] }, ACTOR);
      expect(updated?.pet).toEqual(expect.objectContaining({ name: 'Max', versionTag: '2.1' }));
    });

    it('should answer nothing for an unknown pet', async () => {
      const { id } = await insert(await category());

      expect(await sut.update(id + 1_000, { name: 'Max' }, {}, ACTOR)).toBeUndefined();
    });

    it('should refuse an unknown category with a violation answered 400 on categoryId, changing nothing', async () => {
      const dogs = await category();
      const { id } = await insert(dogs);
      const before = await sut.findById(id);

      const error = await sut
        .update(id, { categoryId: dogs + 1_000 }, {}, ACTOR)
        .catch((refused: unknown) => refused);

      expect(constraintErrorOf(error)?.details).toEqual({
        fields: [{ field: 'categoryId', message: `category ${dogs + 1_000} does not exist` }],
      });

      expect(await sut.findById(id)).toEqual(before);
    });

    it('should move the pet to the counter of its new category and status', async () => {
      const [dogs, cats] = [await category('Dogs'), await category('Cats')];
      const { id } = await insert(dogs);

      await sut.update(id, { categoryId: cats, status: 'pending' }, {}, ACTOR);

      expect(await sut.inventory()).toEqual([
        { id: cats, name: 'Cats', available: 0, pending: 1, sold: 0 },
        { id: dogs, name: 'Dogs', available: 0, pending: 0, sold: 0 },
      ]);
    });
  });

  describe('an update with tags: update, replaceTags, then recordUpdate, in one transaction', () => {
    it('should record the update with its tags once they are written, and nothing before', async () => {
      const { id } = await insert(await category(), {}, ['friendly']);

      const steps = await harness.transaction(async () => {
        await sut.upsertTags(['calm', 'new']);
        const updated = (await sut.update(id, { name: 'Max', status: 'pending' }, {}, undefined))!;
        const recordedBefore = await recorded(id);
        const removed = await sut.replaceTags(id, ['calm', 'new']);
        const changes = {
          ...updated.changes,
          changedFields: [...updated.changes.changedFields, 'tags'],
        };
        return {
          updated,
          recordedBefore,
          removed,
          write: await sut.recordUpdate(id, changes, ACTOR),
        };
      });

      expect(steps.updated.pet.tags.map((tag) => tag.name)).toEqual(['friendly']);
      expect(steps.updated.events).toEqual([]);
      expect(steps.recordedBefore.map((row) => row.type)).toEqual(['pet.created']);
      expect(steps.removed).toEqual(['friendly']);
      const pet = (await sut.findById(id))!;
      expect(pet.tags.map((tag) => tag.name)).toEqual(['calm', 'new']);
      expect(steps.write?.pet).toEqual(pet);
      expect(
        steps.write?.events.map((e) => [e.type, e.changedFields, e.statusFrom, e.statusTo, e.pet]),
      ).toEqual([
        ['pet.updated', ['name', 'tags'], null, null, snapshotOf(pet)],
        ['pet.status_changed', null, 'available', 'pending', snapshotOf(pet)],
      ]);
      expect((await recorded(id)).slice(1)).toEqual(steps.write!.events.map(rowOf));
    });
  });

  describe('recordUpdate', () => {
    it('should record the changes given, by the actor, dated by the pet’s last write', async () => {
      const { id } = await insert(await category());
      await setPet(id, `status = 'sold'`);

      const write = await sut.recordUpdate(
        id,
        { changedFields: ['tags'], statusFrom: 'pending' },
        OTHER_ACTOR,
      );

      const pet = (await sut.findById(id))!;
      const common = {
        subject: `pet:${id}`,
        sequence: expect.any(Number),
        id: expect.stringMatching(EVT_ID),
        petId: id,
        occurredAt: pet.updatedAt.toISOString(),
        actorUserId: OTHER_ACTOR.userId,
        actorApiKeyPrefix: null,
        actorRole: OTHER_ACTOR.role,
        pet: snapshotOf(pet),
      };
      expect(write).toEqual({
        pet,
        events: [
          {
            ...common,
            type: 'pet.updated',
            changedFields: ['tags'],
            statusFrom: null,
            statusTo: null,
            adoptionId: null,
          },
          {
            ...common,
            type: 'pet.status_changed',
            changedFields: null,
            statusFrom: 'pending',
            statusTo: 'sold',
            adoptionId: null,
          },
        ],
      });
      expect((await recorded(id)).slice(1)).toEqual(write!.events.map(rowOf));
    });

    it('should record nothing for changes that change nothing, and still read the pet back', async () => {
      const { id } = await insert(await category());

      const write = await sut.recordUpdate(
        id,
        { changedFields: [], statusFrom: 'available' },
        ACTOR,
      );

      expect(write).toEqual({ pet: await sut.findById(id), events: [] });
      expect((await recorded(id)).map((row) => row.type)).toEqual(['pet.created']);
    });

    it('should answer nothing for an unknown pet, recording nothing', async () => {
      const { id } = await insert(await category());

      expect(
        await sut.recordUpdate(id + 1_000, { changedFields: ['name'], statusFrom: 'sold' }, ACTOR),
      ).toBeUndefined();

      expect(await recorded(id + 1_000)).toEqual([]);
    });
  });

  describe('appendPhotoUrl', () => {
    it('should append the URL, raise the version and record pet.image_added', async () => {
      const { id } = await insert(await category(), { photoUrls: ['a.jpg'] });

      const write = await sut.appendPhotoUrl(id, 'b.jpg', MAX_PHOTOS, ACTOR);

      const pet = (await sut.findById(id))!;
      expect(pet).toEqual(
        expect.objectContaining({ photoUrls: ['a.jpg', 'b.jpg'], versionTag: '2.1' }),
      );
      expect(write).toEqual({
        pet,
        events: [
          expect.objectContaining({
            type: 'pet.image_added',
            occurredAt: pet.updatedAt.toISOString(),
            actorUserId: ACTOR.userId,
            actorApiKeyPrefix: ACTOR.apiKeyPrefix,
            actorRole: ACTOR.role,
            pet: snapshotOf(pet),
          }),
        ],
      });
      expect((await recorded(id)).slice(1)).toEqual(write!.events.map(rowOf));
    });

    it('should append nothing and record nothing once the pet holds `max` URLs', async () => {
      const { id } = await insert(await category(), { photoUrls: ['a.jpg', 'b.jpg'] });
      const before = await sut.findById(id);

      expect(await sut.appendPhotoUrl(id, 'c.jpg', MAX_PHOTOS, ACTOR)).toBeUndefined();

      expect(await sut.findById(id)).toEqual(before);
      expect((await recorded(id)).map((row) => row.type)).toEqual(['pet.created']);
    });

    it('should answer nothing for an unknown pet', async () => {
      const { id } = await insert(await category());

      expect(await sut.appendPhotoUrl(id + 1_000, 'a.jpg', MAX_PHOTOS, ACTOR)).toBeUndefined();
    });
  });

  describe('lock', () => {
    it('should answer the pet’s version tag, its category’s version included', async () => {
      const dogs = await category();
      const { id } = await insert(dogs);
      await harness.query('UPDATE categories SET version = version + 1 WHERE id = $1', [dogs]);

      expect(await harness.transaction(() => sut.lock(id))).toBe('1.2');
      expect(await harness.transaction(() => sut.lock(id + 1_000))).toBeUndefined();
    });

    // A session of its own tries the row: PGlite serves one session at a time.
    const onServer = process.env.DATABASE_URL ? it : it.skip;

    onServer('should hold the pet’s row until the transaction ends', async () => {
      const { id } = await insert(await category());
      const other = new pg.Client({ connectionString: harness.database.env.DATABASE_URL });
      await other.connect();
      const tryLock = () => other.query('SELECT 1 FROM pets WHERE id = $1 FOR UPDATE NOWAIT', [id]);
      try {
        await harness.transaction(async () => {
          await sut.lock(id);

          // 55P03: lock_not_available.
          await expect(tryLock()).rejects.toEqual(expect.objectContaining({ code: '55P03' }));
        });

        expect((await tryLock()).rowCount).toBe(1);
      } finally {
        await other.end();
      }
    });
  });

  describe('delete', () => {
    it('should delete the pet and record pet.deleted with the pet as it was, tags included', async () => {
      const dogs = await category('Dogs');
      const { id } = await insert(dogs, {}, ['friendly', 'calm']);
      const before = (await sut.findById(id))!;

      const write = await harness.transaction(async () => {
        await sut.lock(id);
        return sut.delete(id, OTHER_ACTOR);
      });

      expect(write).toEqual({
        pet: before,
        events: [
          {
            type: 'pet.deleted',
            subject: `pet:${id}`,
            sequence: expect.any(Number),
            id: expect.stringMatching(EVT_ID),
            petId: id,
            occurredAt: expect.any(String),
            actorUserId: OTHER_ACTOR.userId,
            actorApiKeyPrefix: null,
            actorRole: OTHER_ACTOR.role,
            changedFields: null,
            statusFrom: null,
            statusTo: null,
            adoptionId: null,
            pet: snapshotOf(before),
          },
        ],
      });
      expect(before.tags.map((tag) => tag.name)).toEqual(['calm', 'friendly']);
      expect(new Date(write!.events[0].occurredAt).getTime()).toBeGreaterThanOrEqual(
        before.updatedAt.getTime(),
      );
      expect(await sut.findById(id)).toBeUndefined();
      expect((await recorded(id)).slice(1)).toEqual(write!.events.map(rowOf));
      expect(await harness.query('SELECT 1 FROM pet_tags WHERE pet_id = $1', [id])).toEqual([]);
      expect(await sut.inventory()).toEqual([
        { id: dogs, name: 'Dogs', available: 0, pending: 0, sold: 0 },
      ]);
    });

    it('should answer nothing for an unknown pet, recording nothing', async () => {
      const { id } = await insert(await category());

      expect(await sut.delete(id + 1_000, ACTOR)).toBeUndefined();

      expect(await recorded(id + 1_000)).toEqual([]);
    });
  });

  describe('upsertTags and replaceTags', () => {
    const allTags = () =>
      harness.query<{ id: number; name: string }>('SELECT id, name FROM tags ORDER BY name');
    const tagNamesOf = async (petId: number) =>
      (await sut.findById(petId))?.tags.map((tag) => tag.name);

    it('should create only the tags not there yet, once each, keeping the others’ ids', async () => {
      await sut.upsertTags(['friendly', 'calm', 'friendly']);
      const [calm, friendly] = await allTags();

      await sut.upsertTags(['new', 'calm']);

      expect([calm.name, friendly.name]).toEqual(['calm', 'friendly']);
      expect(await allTags()).toEqual([calm, friendly, { id: expect.any(Number), name: 'new' }]);
    });

    it('should make the pet’s tags the names given and answer those it had', async () => {
      const { id } = await insert(await category(), {}, ['friendly', 'calm']);
      const other = await insert(await category(), {}, ['friendly']);
      await sut.upsertTags(['new']);
      const replace = async (names: string[]) =>
        (await harness.transaction(() => sut.replaceTags(id, names))).sort();

      expect(await replace(['new', 'calm'])).toEqual(['calm', 'friendly']);
      expect(await tagNamesOf(id)).toEqual(['calm', 'new']);
      expect(await replace([])).toEqual(['calm', 'new']);
      expect(await tagNamesOf(id)).toEqual([]);
      expect(await replace([])).toEqual([]);
      expect(await tagNamesOf(other.id)).toEqual(['friendly']);
    });
  });
});

describe(PetEventsRepository.name, () => {
  let sut: PetEventsRepository;

  beforeAll(() => {
    sut = harness.get(PetEventsRepository);
  });

  /**
   * A pet with a history, made by PetsRepository: created, updated, status_changed,
   * image_added, then deleted unless `kept`. Its events as the writes answered them, newest first.
   */
  const petWithHistory = async ({ kept = false } = {}) => {
    const pets = harness.get(PetsRepository);
    const categoryId = await category();
    const created = await harness.transaction(() =>
      pets.insert({ name: 'Rex', categoryId, status: 'available', photoUrls: [] }, [], ACTOR),
    );
    const petId = created.pet.id;
    const writes = [
      created,
      await pets.update(petId, { name: 'Max', status: 'pending' }, {}, ACTOR),
      await pets.appendPhotoUrl(petId, 'a.jpg', MAX_PHOTOS, OTHER_ACTOR),
      kept ? undefined : await harness.transaction(() => pets.delete(petId, ACTOR)),
    ];
    return { petId, newestFirst: writes.flatMap((write) => write?.events ?? []).reverse() };
  };

  describe('findHistoryPage', () => {
    it('should list the pet’s events newest first, as its writes answered them, a page at a time, with the total', async () => {
      const { petId, newestFirst } = await petWithHistory({ kept: true });
      await petWithHistory();
      const page = async (limit: number, offset: number) => {
        const found = await sut.findHistoryPage(petId, { limit, offset });
        return { ...found, events: found.events.map(comparable) };
      };
      const expected = newestFirst.map(comparable);

      expect(expected.map((event) => event.type)).toEqual([
        'pet.image_added',
        'pet.status_changed',
        'pet.updated',
        'pet.created',
      ]);
      expect(await page(2, 0)).toEqual({ events: expected.slice(0, 2), total: 4, petExists: true });
      expect(await page(2, 2)).toEqual({ events: expected.slice(2), total: 4, petExists: true });
      expect(await page(2, 4)).toEqual({ events: [], total: 4, petExists: true });
    });

    it('should list the events before a sequence, ignoring the offset', async () => {
      const { petId, newestFirst } = await petWithHistory({ kept: true });
      const [, second, third, fourth] = newestFirst;

      const found = await sut.findHistoryPage(petId, {
        limit: 2,
        offset: 3,
        beforeSequence: second.sequence,
      });

      expect(found.events.map((event) => event.id)).toEqual([third.id, fourth.id]);
      expect(found.total).toBe(4);
    });

    it('should keep a deleted pet’s history, saying the pet is gone', async () => {
      const { petId, newestFirst } = await petWithHistory();

      const found = await sut.findHistoryPage(petId, { limit: 10, offset: 0 });

      expect(found.events.map(comparable)).toEqual(newestFirst.map(comparable));
      expect(found.events[0].type).toBe('pet.deleted');
      expect({ total: found.total, petExists: found.petExists }).toEqual({
        total: 5,
        petExists: false,
      });
    });

    it('should answer an empty page for a pet that never existed', async () => {
      const { petId } = await petWithHistory({ kept: true });

      expect(await sut.findHistoryPage(petId + 1_000, { limit: 10, offset: 0 })).toEqual({
        events: [],
        total: 0,
        petExists: false,
      });
    });
  });
});
