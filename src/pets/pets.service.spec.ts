import { beforeEach, describe, expect, it, jest } from '@jest/globals';
import { EventEmitter2 } from '@nestjs/event-emitter';
import type { DomainEvent } from '../events/domain-event.js';
import type { ListPetsQueryDto } from './dto/list-pets-query.dto.js';
import type { PetActor } from './pet-actor.js';
import { CursorSigner } from '../common/dto/page-cursor.js';
import { decodeCursor, filtersTag } from './pet-cursor.js';
import {
  PET_CHANGED_FIELDS,
  petEventsOf,
  type PetEventType,
  type RecordedPetEvent,
} from './pet-events.js';
import { PetsRepository, type PetWrite } from './pets.repository.js';
import { PetsService } from './pets.service.js';
import type { PetRow } from './sql/pet-reads.sql.js';
import type { PetChanges } from './sql/pet-writes.sql.js';
import { refusal } from '../../test/support/errors.js';
import { recordingDomainEvents } from '../../test/support/domain-events.js';
import { fakeTxHost } from '../../test/support/transactions.js';

const actor: PetActor = { userId: 7, apiKeyPrefix: 'pk_test_abcd' };

function petRow(id: number, fields: Partial<PetRow> = {}): PetRow {
  return {
    id,
    name: `pet ${id}`,
    status: 'available',
    photoUrls: [],
    age: null,
    breed: null,
    description: null,
    createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, id)),
    updatedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, id)),
    categoryId: 1,
    categoryName: 'Dogs',
    categoryDescription: null,
    tags: [],
    versionTag: '1.1',
    ...fields,
  };
}

let sequence = 0;

/** An event as a write's statement records it. */
function recorded(type: PetEventType, fields: Partial<RecordedPetEvent> = {}): RecordedPetEvent {
  sequence += 1;
  return {
    sequence,
    id: `evt_${String(sequence).padStart(32, '0')}`,
    type,
    occurredAt: new Date(Date.UTC(2026, 0, 2)).toISOString(),
    changedFields: null,
    statusFrom: null,
    statusTo: null,
    adoptionId: null,
    ...fields,
  };
}

/** What a repository write answers: the pet, and the events it recorded, as published. */
const written = (pet: PetRow, ...events: RecordedPetEvent[]): PetWrite => ({
  pet,
  events: petEventsOf(pet, events, actor),
});

/** What the repository's update answers: a write, and what changed (nothing by default). */
const updated = (
  pet: PetRow,
  changes: Partial<PetChanges> = {},
  ...events: RecordedPetEvent[]
) => ({
  ...written(pet, ...events),
  changes: { changedFields: [], statusFrom: pet.status, ...changes },
});

/** Every repository method a stub. */
function fakeRepository() {
  return {
    findPage: jest.fn<PetsRepository['findPage']>(),
    facets: jest.fn<PetsRepository['facets']>(),
    exportBatches: jest.fn<PetsRepository['exportBatches']>(),
    findById: jest.fn<PetsRepository['findById']>(),
    findByExternalIds: jest.fn<PetsRepository['findByExternalIds']>(),
    inventory: jest.fn<PetsRepository['inventory']>(),
    insert: jest.fn<PetsRepository['insert']>(),
    insertMany: jest.fn<PetsRepository['insertMany']>(),
    update: jest.fn<PetsRepository['update']>(),
    moveForAdoptions: jest.fn<PetsRepository['moveForAdoptions']>(),
    recordUpdate: jest.fn<PetsRepository['recordUpdate']>(),
    stateOf: jest.fn<PetsRepository['stateOf']>(),
    exists: jest.fn<PetsRepository['exists']>(),
    photoUrlCount: jest.fn<PetsRepository['photoUrlCount']>(),
    appendPhotoUrl: jest.fn<PetsRepository['appendPhotoUrl']>(),
    lock: jest.fn<PetsRepository['lock']>(),
    delete: jest.fn<PetsRepository['delete']>(),
    upsertTags: jest.fn<PetsRepository['upsertTags']>(),
    replaceTags: jest.fn<PetsRepository['replaceTags']>(),
  } satisfies Record<keyof PetsRepository, unknown>;
}

const query = (fields: Partial<ListPetsQueryDto>): ListPetsQueryDto => ({ limit: 2, ...fields });

const signer = new CursorSigner('a test secret for page cursors');

describe(PetsService.name, () => {
  let repository: ReturnType<typeof fakeRepository>;
  let txHost: ReturnType<typeof fakeTxHost>;
  let emitter: EventEmitter2;
  /** Repository calls (marked when outside a transaction), published events and commits, in order. */
  let calls: string[];
  let published: DomainEvent[];
  let sut: PetsService;

  /** Logs a repository call, marked when it is made outside a transaction. */
  const call = (name: string) => calls.push(txHost.active ? name : `${name} outside`);

  beforeEach(() => {
    repository = fakeRepository();
    txHost = fakeTxHost();
    jest.spyOn(txHost, 'withTransaction');
    calls = [];
    txHost.onCommit = () => calls.push('commit');
    const events = recordingDomainEvents(txHost.asHost(), (entry) => calls.push(entry));
    emitter = events.emitter;
    published = events.published;
    sut = new PetsService(
      repository as unknown as PetsRepository,
      events.events,
      txHost.asHost(),
      signer,
    );
  });

  describe('list', () => {
    /** A page row: the pet and its value of the sort key. */
    const pageRow = (
      id: number,
      sortKey: Date | string | number | null = petRow(id).createdAt,
    ) => ({
      ...petRow(id),
      sortKey,
    });

    it('should give a cursor to the next page that carries the filters, sort and position', async () => {
      repository.findPage.mockResolvedValue({ pets: [pageRow(9), pageRow(8)], total: 5 });

      const page = await sut.list(query({ status: 'available' }));

      expect(repository.findPage).toHaveBeenCalledWith({
        category: undefined,
        status: 'available',
        q: undefined,
        tags: undefined,
        breed: undefined,
        minAge: undefined,
        maxAge: undefined,
        createdAfter: undefined,
        createdBefore: undefined,
        sort: '-createdAt',
        limit: 2,
        offset: 0,
        after: undefined,
      });
      expect(page.pagination).toMatchObject({ limit: 2, offset: 0, total: 5, hasMore: true });
      const next = decodeCursor(
        signer,
        page.pagination.nextCursor!,
        { status: 'available' },
        '-createdAt',
      );
      expect(next).toEqual({
        key: petRow(8).createdAt.toISOString(),
        id: 8,
        offset: 2,
        filters: filtersTag({ status: 'available' }, '-createdAt'),
      });
    });

    it('should sort by relevance by default with q, and carry the rank in the cursor', async () => {
      repository.findPage.mockResolvedValue({
        pets: [pageRow(9, 0.5), pageRow(8, 0.25)],
        total: 3,
      });

      const page = await sut.list(query({ q: 'labrador' }));

      expect(repository.findPage).toHaveBeenCalledWith(
        expect.objectContaining({ q: 'labrador', sort: 'relevance' }),
      );
      expect(
        decodeCursor(signer, page.pagination.nextCursor!, { q: 'labrador' }, 'relevance'),
      ).toEqual(expect.objectContaining({ key: 0.25, id: 8 }));
    });

    it('should read after the cursor, from its offset', async () => {
      repository.findPage.mockResolvedValue({ pets: [pageRow(9, 'b'), pageRow(8, 'a')], total: 3 });
      const first = await sut.list(query({ sort: 'name' }));
      repository.findPage.mockResolvedValue({ pets: [pageRow(7, null)], total: 3 });

      const second = await sut.list(query({ sort: 'name', cursor: first.pagination.nextCursor }));

      expect(repository.findPage).toHaveBeenLastCalledWith(
        expect.objectContaining({ sort: 'name', offset: 2, after: { key: 'a', id: 8 } }),
      );
      expect(second.pagination).toMatchObject({ offset: 2, total: 3, hasMore: false });
      expect(second.pagination.nextCursor).toBeUndefined();
    });

    it('should refuse a cursor of another sort', async () => {
      repository.findPage.mockResolvedValue({ pets: [pageRow(9, 'b'), pageRow(8, 'a')], total: 3 });
      const first = await sut.list(query({ sort: 'name' }));

      const error = await refusal(
        sut.list(query({ sort: '-name', cursor: first.pagination.nextCursor })),
      );

      expect(error.details).toEqual({
        fields: [{ field: 'cursor', message: expect.stringContaining('other filters') }],
      });
    });
  });

  describe('export', () => {
    it('should read the list’s filters in batches of 1,000, outside any transaction', () => {
      const batches = (async function* () {})();
      repository.exportBatches.mockReturnValue(batches);

      expect(sut.export({ category: 'Dogs', tag: ['calm'], minAge: 2, format: 'csv' })).toBe(
        batches,
      );

      expect(repository.exportBatches).toHaveBeenCalledWith(
        {
          category: 'Dogs',
          status: undefined,
          q: undefined,
          tags: ['calm'],
          breed: undefined,
          minAge: 2,
          maxAge: undefined,
          createdAfter: undefined,
          createdBefore: undefined,
        },
        1_000,
        'csv',
      );
      expect(txHost.withTransaction).not.toHaveBeenCalled();
    });
  });

  describe('findOne', () => {
    it('should answer 404 PET_NOT_FOUND for a pet that does not exist', async () => {
      repository.findById.mockResolvedValue(undefined);

      const error = await refusal(sut.findOne(41));

      expect(error.getStatus()).toBe(404);
      expect(error.code).toBe('PET_NOT_FOUND');
    });
  });

  describe('inventory', () => {
    it('should add the categories up into the overall counts', async () => {
      const byCategory = [
        { id: 2, name: 'Cats', available: 1, pending: 0, sold: 4 },
        { id: 1, name: 'Dogs', available: 2, pending: 3, sold: 0 },
      ];
      repository.inventory.mockResolvedValue(byCategory);

      expect(await sut.inventory()).toEqual({ available: 3, pending: 3, sold: 4, byCategory });
    });
  });

  describe('create', () => {
    it('should insert with an empty photoUrls and publish what it recorded, in its transaction', async () => {
      const write = written(petRow(1), recorded('pet.created'));
      repository.insert.mockImplementation(() => {
        call('insert');
        return Promise.resolve(write);
      });

      const pet = await sut.create({ name: 'Rex', categoryId: 1, status: 'available' }, actor);

      expect(repository.insert).toHaveBeenCalledWith(
        { name: 'Rex', categoryId: 1, status: 'available', photoUrls: [] },
        [],
        actor,
      );
      expect(calls).toEqual(['insert', 'pet.created', 'commit']);
      expect(published).toEqual(write.events);
      expect(published).toEqual([
        expect.objectContaining({
          type: 'pet.created',
          subject: 'pet:1',
          petId: 1,
          actorUserId: 7,
          actorApiKeyPrefix: 'pk_test_abcd',
        }),
      ]);
      expect(pet).toBe(write.pet);
    });

    it('should create new tags first, then insert with them in the same transaction', async () => {
      repository.upsertTags.mockImplementation(() => {
        call('upsertTags');
        return Promise.resolve();
      });
      const withTags = petRow(3, { tags: [{ id: 1, name: 'calm' }] });
      repository.insert.mockImplementation(() => {
        call('insert');
        return Promise.resolve(written(withTags, recorded('pet.created')));
      });

      const pet = await sut.create(
        { name: 'Rex', categoryId: 1, status: 'available', tags: ['calm'] },
        actor,
      );

      expect(calls).toEqual(['upsertTags', 'insert', 'pet.created', 'commit']);
      expect(repository.upsertTags).toHaveBeenCalledWith(['calm']);
      expect(repository.insert).toHaveBeenCalledWith(expect.anything(), ['calm'], actor);
      expect(pet).toBe(withTags);
    });
  });

  describe('createMany', () => {
    it('should create every new tag once, then insert the pets in one call, and publish each one’s pet.created, in one transaction', async () => {
      repository.upsertTags.mockImplementation(() => {
        call('upsertTags');
        return Promise.resolve();
      });
      const writes = [
        written(petRow(1, { tags: [{ id: 1, name: 'calm' }] }), recorded('pet.created')),
        written(petRow(2), recorded('pet.created')),
      ];
      repository.insertMany.mockImplementation(() => {
        call('insertMany');
        return Promise.resolve(writes);
      });

      const pets = await sut.createMany(
        [
          { name: 'Rex', categoryId: 1, status: 'available', tags: ['calm', 'calm'] },
          { name: 'Ada', categoryId: 1, status: 'sold', photoUrls: ['https://x.test/a.png'] },
        ],
        actor,
      );

      expect(calls).toEqual(['upsertTags', 'insertMany', 'pet.created', 'pet.created', 'commit']);
      expect(repository.upsertTags).toHaveBeenCalledWith(['calm', 'calm']);
      expect(repository.insertMany).toHaveBeenCalledWith(
        [
          {
            fields: { name: 'Rex', categoryId: 1, status: 'available', photoUrls: [] },
            tags: ['calm', 'calm'],
          },
          {
            fields: {
              name: 'Ada',
              categoryId: 1,
              status: 'sold',
              photoUrls: ['https://x.test/a.png'],
            },
            tags: [],
          },
        ],
        actor,
      );
      expect(published).toEqual(writes.flatMap((write) => write.events));
      expect(pets).toEqual(writes.map((write) => write.pet));
    });

    it('should write nothing for no pets', async () => {
      expect(await sut.createMany([], actor)).toEqual([]);
      expect(repository.upsertTags).not.toHaveBeenCalled();
      expect(repository.insertMany).not.toHaveBeenCalled();
    });
  });

  describe('update', () => {
    it('should allow only the statuses that may move to the requested one', async () => {
      repository.update.mockResolvedValue(updated(petRow(1, { status: 'sold' })));

      await sut.update(1, { status: 'sold' }, actor);

      expect(repository.update).toHaveBeenCalledWith(
        1,
        { status: 'sold' },
        { fromStatuses: ['pending', 'sold'], versionTags: undefined },
        actor,
      );
    });

    it('should make the update conditional on the If-Match tags, and on none for *', async () => {
      repository.update.mockResolvedValue(updated(petRow(1)));

      await sut.update(1, { name: 'Rex' }, actor, ['3.1', '4.1']);
      await sut.update(1, { name: 'Rex' }, actor, '*');

      expect(repository.update.mock.calls.map((call) => call[2])).toEqual([
        { fromStatuses: undefined, versionTags: ['3.1', '4.1'] },
        { fromStatuses: undefined, versionTags: undefined },
      ]);
    });

    it('should answer 412 PRECONDITION_FAILED with the current ETag when nothing matched and the version moved on', async () => {
      repository.update.mockResolvedValue(undefined);
      repository.stateOf.mockResolvedValue({ status: 'available', versionTag: '5.2' });

      const error = await refusal(sut.update(1, { status: 'sold' }, actor, ['4.2']));

      expect(error.getStatus()).toBe(412);
      expect(error.code).toBe('PRECONDITION_FAILED');
      expect(error.details).toEqual({ currentEtag: '"5.2"' });
    });

    it('should answer 409 INVALID_STATUS_TRANSITION with the allowed moves when the status forbids it', async () => {
      repository.update.mockResolvedValue(undefined);
      repository.stateOf.mockResolvedValue({ status: 'available', versionTag: '1.1' });

      const error = await refusal(sut.update(1, { status: 'sold' }, actor));

      expect(error.getStatus()).toBe(409);
      expect(published).toEqual([]);
      expect(error.code).toBe('INVALID_STATUS_TRANSITION');
      expect(error.details).toEqual({
        from: 'available',
        to: 'sold',
        allowed: ['available', 'pending'],
      });
    });

    it('should answer 404 PET_NOT_FOUND when nothing matched and the pet is gone', async () => {
      repository.update.mockResolvedValue(undefined);
      repository.stateOf.mockResolvedValue(undefined);

      const error = await refusal(sut.update(1, { name: 'Rex' }, actor));

      expect(error.code).toBe('PET_NOT_FOUND');
    });

    it('should publish, in the transaction, a pet.updated naming photoUrls and carrying the pet as written', async () => {
      const photoUrls = ['https://x/a.jpg'];
      repository.update.mockImplementation(() => {
        call('update');
        return Promise.resolve(
          updated(
            petRow(1, { photoUrls, versionTag: '2.1' }),
            { changedFields: ['photoUrls'] },
            recorded('pet.updated', { changedFields: ['photoUrls'] }),
          ),
        );
      });

      await sut.update(1, { photoUrls }, actor);

      expect(calls).toEqual(['update', 'pet.updated', 'commit']);
      expect(published).toEqual([
        expect.objectContaining({
          type: 'pet.updated',
          subject: 'pet:1',
          petId: 1,
          changedFields: ['photoUrls'],
          pet: expect.objectContaining({
            id: 1,
            photoUrls,
            versionTag: '2.1',
            updatedAt: petRow(1).updatedAt.toISOString(),
          }),
        }),
      ]);
    });

    it('should create new tags before it writes the pet, then replace its tags, and publish what it recorded last', async () => {
      repository.upsertTags.mockImplementation(() => {
        call('upsertTags');
        return Promise.resolve();
      });
      repository.update.mockImplementation(() => {
        call('update');
        return Promise.resolve(updated(petRow(1), { statusFrom: 'available' }));
      });
      repository.replaceTags.mockImplementation(() => {
        call('replaceTags');
        return Promise.resolve([]);
      });
      repository.recordUpdate.mockImplementation(() => {
        call('recordUpdate');
        return Promise.resolve(
          written(
            petRow(1, { status: 'pending' }),
            recorded('pet.updated', { changedFields: ['tags'] }),
            recorded('pet.status_changed', { statusFrom: 'available', statusTo: 'pending' }),
          ),
        );
      });

      await sut.update(1, { status: 'pending', tags: ['calm'] }, actor);

      expect(calls).toEqual([
        'upsertTags',
        'update',
        'replaceTags',
        'recordUpdate',
        'pet.updated',
        'pet.status_changed',
        'commit',
      ]);
      expect(repository.replaceTags).toHaveBeenCalledWith(1, ['calm']);
    });

    it('should record in the update’s own statement, and publish only what it recorded', async () => {
      repository.update
        .mockResolvedValueOnce(updated(petRow(1)))
        .mockResolvedValueOnce(
          updated(
            petRow(1, { status: 'pending' }),
            { statusFrom: 'available' },
            recorded('pet.status_changed', { statusFrom: 'available', statusTo: 'pending' }),
          ),
        )
        .mockResolvedValueOnce(
          updated(
            petRow(1),
            { changedFields: ['name'] },
            recorded('pet.updated', { changedFields: ['name'] }),
          ),
        );

      await sut.update(1, { name: 'pet 1', status: 'available' }, actor);
      expect(published).toEqual([]);
      await sut.update(1, { status: 'pending' }, actor);
      await sut.update(1, { name: 'Max' }, actor);

      expect(published.map((event) => event.type)).toEqual(['pet.status_changed', 'pet.updated']);
      expect(repository.update.mock.calls.map((call) => call[3])).toEqual([actor, actor, actor]);
      expect(repository.recordUpdate).not.toHaveBeenCalled();
      expect(txHost.withTransaction).toHaveBeenCalledTimes(3);
    });

    it('should record a transaction’s update last, naming tags only when their set of names changed', async () => {
      repository.update.mockImplementation(() =>
        Promise.resolve(updated(petRow(1), { changedFields: ['name'] })),
      );
      repository.replaceTags
        .mockResolvedValueOnce(['b', 'a'])
        .mockResolvedValueOnce(['a'])
        .mockResolvedValueOnce(['a', 'b']);
      repository.recordUpdate.mockImplementation((_id, changes) => {
        const changedFields = PET_CHANGED_FIELDS.filter((f) => changes.changedFields.includes(f));
        return Promise.resolve(written(petRow(1), recorded('pet.updated', { changedFields })));
      });

      await sut.update(1, { name: 'Max', tags: ['a', 'b', 'a'] }, actor);
      await sut.update(1, { name: 'Max', tags: ['a', 'b'] }, actor);
      await sut.update(1, { name: 'Max', tags: ['a'] }, actor);

      expect(repository.update.mock.calls.map((call) => call[3])).toEqual([
        undefined,
        undefined,
        undefined,
      ]);
      expect(repository.recordUpdate.mock.calls).toEqual([
        [1, { changedFields: ['name'], statusFrom: 'available' }, actor],
        [1, { changedFields: ['name', 'tags'], statusFrom: 'available' }, actor],
        [1, { changedFields: ['name', 'tags'], statusFrom: 'available' }, actor],
      ]);
      expect(published.map((event) => event.type)).toEqual([
        'pet.updated',
        'pet.updated',
        'pet.updated',
      ]);
    });

    it('should publish nothing for a transaction’s update that changed nothing', async () => {
      repository.update.mockResolvedValue(updated(petRow(1)));
      repository.replaceTags.mockResolvedValue(['calm']);
      repository.recordUpdate.mockResolvedValue(written(petRow(1)));

      await sut.update(1, { tags: ['calm'] }, actor);

      expect(repository.recordUpdate).toHaveBeenCalledWith(
        1,
        { changedFields: [], statusFrom: 'available' },
        actor,
      );
      expect(published).toEqual([]);
    });

    it('should answer 404 PET_NOT_FOUND and publish nothing when the pet is gone by the time its update is recorded', async () => {
      repository.update.mockResolvedValue(updated(petRow(1), { changedFields: ['name'] }));
      repository.replaceTags.mockResolvedValue([]);
      repository.recordUpdate.mockResolvedValue(undefined);

      const error = await refusal(sut.update(1, { name: 'Max', tags: ['a'] }, actor));

      expect(error.code).toBe('PET_NOT_FOUND');
      expect(published).toEqual([]);
      expect(calls).not.toContain('commit');
    });
  });

  describe('remove', () => {
    it('should lock, delete, and publish pet.deleted with the pet as it was, in one transaction', async () => {
      const write = written(petRow(5), recorded('pet.deleted'));
      repository.lock.mockImplementation(() => {
        call('lock');
        return Promise.resolve('1.1');
      });
      repository.delete.mockImplementation(() => {
        call('delete');
        return Promise.resolve(write);
      });

      await sut.remove(5, actor);

      expect(calls).toEqual(['lock', 'delete', 'pet.deleted', 'commit']);
      expect(repository.delete).toHaveBeenCalledWith(5, actor);
      expect(published).toEqual([
        expect.objectContaining({ type: 'pet.deleted', petId: 5, pet: write.events[0].pet }),
      ]);
    });

    it('should fail, and commit nothing, when a reaction to pet.deleted throws', async () => {
      repository.lock.mockResolvedValue('1.1');
      repository.delete.mockResolvedValue(written(petRow(5), recorded('pet.deleted')));
      emitter.on('pet.deleted', () => {
        throw new Error('images not released');
      });

      await expect(sut.remove(5, actor)).rejects.toThrow('images not released');

      expect(calls).toEqual(['pet.deleted']);
    });

    it('should answer 404 PET_NOT_FOUND and publish nothing when there is no such pet', async () => {
      repository.lock.mockResolvedValue(undefined);

      const error = await refusal(sut.remove(5, actor));

      expect(error.code).toBe('PET_NOT_FOUND');
      expect(published).toEqual([]);
      expect(repository.delete).not.toHaveBeenCalled();
    });

    it('should answer 412 PRECONDITION_FAILED and publish nothing when the locked version is not in If-Match', async () => {
      repository.lock.mockResolvedValue('2.1');

      const error = await refusal(sut.remove(5, actor, ['1.1']));

      expect(error.code).toBe('PRECONDITION_FAILED');
      expect(error.details).toEqual({ currentEtag: '"2.1"' });
      expect(published).toEqual([]);
      expect(repository.delete).not.toHaveBeenCalled();
    });
  });

  describe('photos', () => {
    it('should refuse a 21st photo with 409 CONFLICT before any work is done', async () => {
      repository.photoUrlCount.mockResolvedValue(20);

      const error = await refusal(sut.assertCanAddPhoto(1));

      expect(error.getStatus()).toBe(409);
      expect(error.details).toEqual({ field: 'photoUrls', max: 20 });
    });

    it('should report a pet that is gone as 404, and a full one as 409, when nothing was appended', async () => {
      repository.appendPhotoUrl.mockResolvedValue(undefined);
      repository.exists.mockResolvedValue(false);
      expect((await refusal(sut.appendPhotoUrl(1, 'u', actor))).code).toBe('PET_NOT_FOUND');

      repository.exists.mockResolvedValue(true);
      expect((await refusal(sut.appendPhotoUrl(1, 'u', actor))).code).toBe('CONFLICT');
      expect(repository.appendPhotoUrl).toHaveBeenCalledWith(1, 'u', 20, actor);
      expect(published).toEqual([]);
    });

    it('should publish pet.image_added in the caller’s transaction', async () => {
      repository.appendPhotoUrl.mockImplementation(() => {
        call('append');
        return Promise.resolve(
          written(petRow(1, { photoUrls: ['u'] }), recorded('pet.image_added')),
        );
      });

      await txHost.withTransaction(async () => {
        await sut.appendPhotoUrl(1, 'u', actor);
        calls.push('caller’s own work');
      });

      expect(calls).toEqual(['append', 'pet.image_added', 'caller’s own work', 'commit']);
      expect(published).toEqual([
        expect.objectContaining({
          type: 'pet.image_added',
          pet: expect.objectContaining({ photoUrls: ['u'] }),
        }),
      ]);
    });
  });
});
