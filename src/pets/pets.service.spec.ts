import { beforeEach, describe, expect, it, jest } from '@jest/globals';
import type { ListPetsQueryDto } from './dto/list-pets-query.dto.js';
import type { PetActor } from './pet-actor.js';
import { decodeCursor } from './pet-cursor.js';
import { PetHistoryService } from './pet-history.service.js';
import {
  PetsRepository,
  UnknownCategoryError,
  type PetChanges,
  type PetRow,
} from './pets.repository.js';
import { PetsService } from './pets.service.js';
import { afterCommit } from '../database/transactions.js';
import { refusal } from '../../test/support/errors.js';
import { fakeTxHost } from '../../test/support/transactions.js';

const actor: PetActor = { userId: 7, apiKeyPrefix: 'pk_test_abcd' };

/** What the repository's update answers: the pet, and what changed (nothing by default). */
const updated = (pet: PetRow, changes: Partial<PetChanges> = {}) => ({
  pet,
  changes: { changedFields: [], statusFrom: pet.status, ...changes },
});

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

/** Every repository method a stub. */
function fakeRepository() {
  return {
    findPage: jest.fn<PetsRepository['findPage']>(),
    findById: jest.fn<PetsRepository['findById']>(),
    inventory: jest.fn<PetsRepository['inventory']>(),
    insert: jest.fn<PetsRepository['insert']>(),
    update: jest.fn<PetsRepository['update']>(),
    recordUpdate: jest.fn<PetsRepository['recordUpdate']>(),
    stateOf: jest.fn<PetsRepository['stateOf']>(),
    exists: jest.fn<PetsRepository['exists']>(),
    photoUrlCount: jest.fn<PetsRepository['photoUrlCount']>(),
    appendPhotoUrl: jest.fn<PetsRepository['appendPhotoUrl']>(),
    lock: jest.fn<PetsRepository['lock']>(),
    delete: jest.fn<PetsRepository['delete']>(),
    upsertTags: jest.fn<PetsRepository['upsertTags']>(),
    replaceTags: jest.fn<PetsRepository['replaceTags']>(),
    findHistoryPage: jest.fn<PetsRepository['findHistoryPage']>(),
    lockPublishing: jest.fn<PetsRepository['lockPublishing']>(),
    findUnpublished: jest.fn<PetsRepository['findUnpublished']>(),
    markPublished: jest.fn<PetsRepository['markPublished']>(),
  } satisfies Record<keyof PetsRepository, unknown>;
}

const query = (fields: Partial<ListPetsQueryDto>): ListPetsQueryDto => ({ limit: 2, ...fields });

describe(PetsService.name, () => {
  let repository: ReturnType<typeof fakeRepository>;
  let txHost: ReturnType<typeof fakeTxHost>;
  let sut: PetsService;
  /** Nudges of PetHistoryService.onRecorded listeners, in order with the test's own events. */
  let nudges: number;

  beforeEach(() => {
    repository = fakeRepository();
    txHost = fakeTxHost();
    jest.spyOn(txHost, 'withTransaction');
    const history = new PetHistoryService(repository as unknown as PetsRepository, txHost.asHost());
    nudges = 0;
    history.onRecorded(() => {
      nudges += 1;
    });
    sut = new PetsService(repository as unknown as PetsRepository, history, txHost.asHost());
  });

  describe('list', () => {
    it('should give a cursor to the next page that carries the filters and the position', async () => {
      repository.findPage.mockResolvedValue({ pets: [petRow(9), petRow(8)], total: 5 });

      const page = await sut.list(query({ status: 'available' }));

      expect(repository.findPage).toHaveBeenCalledWith({
        category: undefined,
        status: 'available',
        limit: 2,
        offset: 0,
        after: undefined,
      });
      expect(page.pagination).toMatchObject({ limit: 2, offset: 0, total: 5, hasMore: true });
      const next = decodeCursor(page.pagination.nextCursor!, query({ status: 'available' }));
      expect(next).toEqual({
        createdAt: petRow(8).createdAt.toISOString(),
        id: 8,
        offset: 2,
        category: null,
        status: 'available',
      });
    });

    it('should read after the cursor, from its offset', async () => {
      repository.findPage.mockResolvedValue({ pets: [petRow(9), petRow(8)], total: 3 });
      const first = await sut.list(query({}));
      repository.findPage.mockResolvedValue({ pets: [petRow(7)], total: 3 });

      const second = await sut.list(query({ cursor: first.pagination.nextCursor }));

      expect(repository.findPage).toHaveBeenLastCalledWith(
        expect.objectContaining({
          offset: 2,
          after: { createdAt: petRow(8).createdAt.toISOString(), id: 8 },
        }),
      );
      expect(second.pagination).toMatchObject({ offset: 2, total: 3, hasMore: false });
      expect(second.pagination.nextCursor).toBeUndefined();
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
    it('should insert with an empty photoUrls and outside a transaction when there are no tags', async () => {
      repository.insert.mockResolvedValue(petRow(1));

      await sut.create({ name: 'Rex', categoryId: 1, status: 'available' }, actor);

      expect(repository.insert).toHaveBeenCalledWith(
        { name: 'Rex', categoryId: 1, status: 'available', photoUrls: [] },
        [],
        actor,
      );
      expect(txHost.withTransaction).not.toHaveBeenCalled();
      expect(nudges).toBe(1);
    });

    it('should create new tags first, then insert with them in the same transaction', async () => {
      const calls: string[] = [];
      repository.upsertTags.mockImplementation(() => {
        calls.push(txHost.active ? 'upsertTags' : 'upsertTags outside');
        return Promise.resolve();
      });
      const withTags = petRow(3, { tags: [{ id: 1, name: 'calm' }] });
      repository.insert.mockImplementation(() => {
        calls.push(txHost.active ? 'insert' : 'insert outside');
        return Promise.resolve(withTags);
      });

      const pet = await sut.create(
        { name: 'Rex', categoryId: 1, status: 'available', tags: ['calm'] },
        actor,
      );

      expect(calls).toEqual(['upsertTags', 'insert']);
      expect(repository.upsertTags).toHaveBeenCalledWith(['calm']);
      expect(repository.insert).toHaveBeenCalledWith(expect.anything(), ['calm'], actor);
      expect(pet).toBe(withTags);
    });

    it('should answer 400 naming categoryId when the category does not exist', async () => {
      repository.insert.mockRejectedValue(new UnknownCategoryError());

      const error = await refusal(
        sut.create({ name: 'Rex', categoryId: 77, status: 'available' }, actor),
      );

      expect(error.getStatus()).toBe(400);
      expect(nudges).toBe(0);
      expect(error.details).toEqual({
        fields: [{ field: 'categoryId', message: 'category 77 does not exist' }],
      });
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
      expect(nudges).toBe(0);
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

    it('should run the photoUrls hooks in the transaction and their clean-up after it', async () => {
      const events: string[] = [];
      repository.update.mockResolvedValue(updated(petRow(1)));
      repository.recordUpdate.mockImplementation(() => {
        events.push('record');
        return Promise.resolve(petRow(1));
      });
      txHost.onCommit = () => events.push('commit');
      sut.onPhotoUrlsReplaced((petId, photoUrls) => {
        events.push(`hook ${petId} ${photoUrls.join(',')}${txHost.active ? '' : ' outside'}`);
        afterCommit(() => events.push('clean-up'));
        return Promise.resolve();
      });

      await sut.update(1, { photoUrls: ['https://x/a.jpg'] }, actor);

      expect(events).toEqual(['hook 1 https://x/a.jpg', 'record', 'commit', 'clean-up']);
    });

    it('should create new tags before it writes the pet, then replace its tags', async () => {
      const calls: string[] = [];
      repository.upsertTags.mockImplementation(() => {
        calls.push('upsertTags');
        return Promise.resolve();
      });
      repository.update.mockImplementation(() => {
        calls.push('update');
        return Promise.resolve(updated(petRow(1)));
      });
      repository.replaceTags.mockImplementation(() => {
        calls.push('replaceTags');
        return Promise.resolve([]);
      });
      repository.recordUpdate.mockImplementation(() => {
        calls.push('recordUpdate');
        return Promise.resolve(petRow(1));
      });

      await sut.update(1, { status: 'pending', tags: ['calm'] }, actor);

      expect(calls).toEqual(['upsertTags', 'update', 'replaceTags', 'recordUpdate']);
      expect(repository.replaceTags).toHaveBeenCalledWith(1, ['calm']);
    });

    it('should record in the update’s own statement, and nudge only when it changed something', async () => {
      repository.update
        .mockResolvedValueOnce(updated(petRow(1)))
        .mockResolvedValueOnce(
          updated(petRow(1, { status: 'pending' }), { statusFrom: 'available' }),
        )
        .mockResolvedValueOnce(updated(petRow(1), { changedFields: ['name'] }));

      await sut.update(1, { name: 'pet 1', status: 'available' }, actor);
      expect(nudges).toBe(0);
      await sut.update(1, { status: 'pending' }, actor);
      expect(nudges).toBe(1);
      await sut.update(1, { name: 'Max' }, actor);
      expect(nudges).toBe(2);

      expect(repository.update.mock.calls.map((call) => call[3])).toEqual([actor, actor, actor]);
      expect(repository.recordUpdate).not.toHaveBeenCalled();
    });

    it('should record a transaction’s update last, naming tags only when their set of names changed', async () => {
      repository.update.mockImplementation(() =>
        Promise.resolve(updated(petRow(1), { changedFields: ['name'] })),
      );
      repository.replaceTags
        .mockResolvedValueOnce(['b', 'a'])
        .mockResolvedValueOnce(['a'])
        .mockResolvedValueOnce(['a', 'b']);
      repository.recordUpdate.mockResolvedValue(petRow(1));

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
      expect(nudges).toBe(3);
    });

    it('should nudge nobody for a transaction’s update that changed nothing', async () => {
      repository.update.mockResolvedValue(updated(petRow(1)));
      repository.replaceTags.mockResolvedValue(['calm']);
      repository.recordUpdate.mockResolvedValue(petRow(1));

      await sut.update(1, { tags: ['calm'] }, actor);

      expect(repository.recordUpdate).toHaveBeenCalledWith(
        1,
        { changedFields: [], statusFrom: 'available' },
        actor,
      );
      expect(nudges).toBe(0);
    });

    it('should not run the photoUrls hooks when photoUrls is not replaced', async () => {
      repository.update.mockResolvedValue(updated(petRow(1)));
      const hook = jest.fn(() => Promise.resolve());
      sut.onPhotoUrlsReplaced(hook);

      await sut.update(1, { name: 'Rex' }, actor);

      expect(hook).not.toHaveBeenCalled();
      expect(txHost.withTransaction).not.toHaveBeenCalled();
    });
  });

  describe('remove', () => {
    it('should lock, run the removal hooks, delete, and clean up after the commit', async () => {
      const events: string[] = [];
      repository.lock.mockImplementation(() => {
        events.push('lock');
        return Promise.resolve('1.1');
      });
      repository.delete.mockImplementation(() => {
        events.push('delete');
        return Promise.resolve();
      });
      txHost.onCommit = () => events.push('commit');
      sut.onRemove((petId) => {
        events.push(`hook ${petId}${txHost.active ? '' : ' outside'}`);
        afterCommit(() => events.push('clean-up'));
        return Promise.resolve();
      });

      await sut.remove(5, actor);

      expect(events).toEqual(['lock', 'hook 5', 'delete', 'commit', 'clean-up']);
      expect(repository.delete).toHaveBeenCalledWith(5, actor);
      expect(nudges).toBe(1);
    });

    it('should answer 404 PET_NOT_FOUND and run no hook when there is no such pet', async () => {
      repository.lock.mockResolvedValue(undefined);
      const hook = jest.fn(() => Promise.resolve());
      sut.onRemove(hook);

      const error = await refusal(sut.remove(5, actor));

      expect(error.code).toBe('PET_NOT_FOUND');
      expect(hook).not.toHaveBeenCalled();
      expect(repository.delete).not.toHaveBeenCalled();
    });

    it('should answer 412 PRECONDITION_FAILED and run no hook when the locked version is not in If-Match', async () => {
      repository.lock.mockResolvedValue('2.1');
      const hook = jest.fn(() => Promise.resolve());
      sut.onRemove(hook);

      const error = await refusal(sut.remove(5, actor, ['1.1']));

      expect(error.code).toBe('PRECONDITION_FAILED');
      expect(error.details).toEqual({ currentEtag: '"2.1"' });
      expect(hook).not.toHaveBeenCalled();
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
      repository.appendPhotoUrl.mockResolvedValue(false);
      repository.exists.mockResolvedValue(false);
      expect((await refusal(sut.appendPhotoUrl(1, 'u', actor))).code).toBe('PET_NOT_FOUND');

      repository.exists.mockResolvedValue(true);
      expect((await refusal(sut.appendPhotoUrl(1, 'u', actor))).code).toBe('CONFLICT');
      expect(repository.appendPhotoUrl).toHaveBeenCalledWith(1, 'u', 20, actor);
    });

    it('should nudge the listeners only once the caller’s transaction has committed', async () => {
      repository.appendPhotoUrl.mockResolvedValue(true);
      const events: string[] = [];
      txHost.onCommit = () => events.push('commit');

      await txHost.withTransaction(async () => {
        await sut.appendPhotoUrl(1, 'u', actor);
        events.push(`appended, ${nudges} nudges`);
      });

      expect(events).toEqual(['appended, 0 nudges', 'commit']);
      expect(nudges).toBe(1);
    });

    it('should nudge nobody when the caller’s transaction rolls back', async () => {
      repository.appendPhotoUrl.mockResolvedValue(true);

      await expect(
        txHost.withTransaction(async () => {
          await sut.appendPhotoUrl(1, 'u', actor);
          throw new Error('refused');
        }),
      ).rejects.toThrow('refused');

      expect(nudges).toBe(0);
    });
  });
});
