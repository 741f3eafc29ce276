import { beforeEach, describe, expect, it, jest } from '@jest/globals';
import { CategoriesRepository } from './categories.repository.js';
import { CategoriesService } from './categories.service.js';
import type { Category } from './category.entity.js';
import { refusal } from '../../test/support/errors.js';
import { fakeTxHost } from '../../test/support/transactions.js';
import type { DomainEvent } from '../events/domain-event.js';
import type { DomainEvents } from '../events/domain-events.js';

function category(id: number, name = `category ${id}`): Category {
  const at = new Date(Date.UTC(2026, 0, 1));
  return { id, name, description: null, version: 1, createdAt: at, updatedAt: at };
}

/** Every repository method a stub. */
function fakeRepository() {
  return {
    findAll: jest.fn<CategoriesRepository['findAll']>(),
    findById: jest.fn<CategoriesRepository['findById']>(),
    findByIdForUpdate: jest.fn<CategoriesRepository['findByIdForUpdate']>(),
    insert: jest.fn<CategoriesRepository['insert']>(),
    update: jest.fn<CategoriesRepository['update']>(),
    delete: jest.fn<CategoriesRepository['delete']>(),
  } satisfies Record<keyof CategoriesRepository, unknown>;
}

describe(CategoriesService.name, () => {
  let repository: ReturnType<typeof fakeRepository>;
  let txHost: ReturnType<typeof fakeTxHost>;
  /** What was published, and whether inside the transaction. */
  let published: { event: DomainEvent; inTransaction: boolean }[];
  let sut: CategoriesService;

  beforeEach(() => {
    repository = fakeRepository();
    txHost = fakeTxHost();
    published = [];
    const events = {
      publish: (...events: DomainEvent[]) => {
        for (const event of events) published.push({ event, inTransaction: txHost.active });
        return Promise.resolve();
      },
    };
    sut = new CategoriesService(
      repository as unknown as CategoriesRepository,
      events as unknown as DomainEvents,
      txHost.asHost(),
    );
  });

  describe('findOne', () => {
    it('should answer 404 CATEGORY_NOT_FOUND for a category that does not exist', async () => {
      repository.findById.mockResolvedValue(null);

      const error = await refusal(sut.findOne(41));

      expect(error.getStatus()).toBe(404);
      expect(error.code).toBe('CATEGORY_NOT_FOUND');
      expect(error.message).toBe('Category 41 not found');
    });
  });

  describe('create', () => {
    it('should store an absent description as null', async () => {
      repository.insert.mockResolvedValue(category(1, 'Dogs'));

      await sut.create({ name: 'Dogs' });

      expect(repository.insert).toHaveBeenCalledWith({ name: 'Dogs', description: null });
    });

    it('should publish category.created with the new category, inside its transaction', async () => {
      repository.insert.mockResolvedValue(category(1, 'Dogs'));

      await sut.create({ name: 'Dogs' });

      expect(published).toEqual([
        {
          event: {
            type: 'category.created',
            subject: 'category:1',
            categoryId: 1,
            before: null,
            after: { id: 1, name: 'Dogs', description: null },
          },
          inTransaction: true,
        },
      ]);
    });
  });

  describe('update', () => {
    it('should answer 404 CATEGORY_NOT_FOUND, writing nothing, when the category does not exist', async () => {
      repository.findByIdForUpdate.mockResolvedValue(null);

      const error = await refusal(sut.update(41, { name: 'Cats' }, ['1']));

      expect(error.code).toBe('CATEGORY_NOT_FOUND');
      expect(repository.update).not.toHaveBeenCalled();
      expect(published).toEqual([]);
    });

    it('should publish category.updated with the category before and after, inside its transaction', async () => {
      repository.findByIdForUpdate.mockResolvedValue(category(1, 'Dogs'));
      repository.update.mockResolvedValue(true);
      repository.findById.mockResolvedValue(category(1, 'Cats'));

      await sut.update(1, { name: 'Cats' });

      expect(published).toEqual([
        {
          event: {
            type: 'category.updated',
            subject: 'category:1',
            categoryId: 1,
            before: { id: 1, name: 'Dogs', description: null },
            after: { id: 1, name: 'Cats', description: null },
          },
          inTransaction: true,
        },
      ]);
    });

    it('should write only at the versions If-Match names, and at any for *', async () => {
      repository.findByIdForUpdate.mockResolvedValue(category(1));
      repository.update.mockResolvedValue(true);
      repository.findById.mockResolvedValue(category(1));

      await sut.update(1, { name: 'Cats' }, ['3', 'W-not-a-version', '4']);
      await sut.update(1, { name: 'Cats' }, '*');

      expect(repository.update.mock.calls.map((call) => call[2])).toEqual([[3, 4], undefined]);
    });

    it('should answer 412 PRECONDITION_FAILED with the current ETag when nothing matched', async () => {
      repository.findByIdForUpdate.mockResolvedValue({ ...category(1), version: 6 });
      repository.update.mockResolvedValue(false);

      const error = await refusal(sut.update(1, { name: 'Cats' }, ['5']));

      expect(error.getStatus()).toBe(412);
      expect(error.details).toEqual({ currentEtag: '"6"' });
      expect(published).toEqual([]);
    });
  });

  describe('remove', () => {
    it('should answer 404 CATEGORY_NOT_FOUND, deleting nothing, when the category does not exist', async () => {
      repository.findByIdForUpdate.mockResolvedValue(null);

      const error = await refusal(sut.remove(41));

      expect(error.getStatus()).toBe(404);
      expect(error.code).toBe('CATEGORY_NOT_FOUND');
      expect(repository.delete).not.toHaveBeenCalled();
    });

    it('should publish category.deleted with the category as it was, inside its transaction', async () => {
      repository.findByIdForUpdate.mockResolvedValue(category(3, 'Birds'));
      repository.delete.mockResolvedValue(true);

      await sut.remove(3);

      expect(published).toEqual([
        {
          event: {
            type: 'category.deleted',
            subject: 'category:3',
            categoryId: 3,
            before: { id: 3, name: 'Birds', description: null },
            after: null,
          },
          inTransaction: true,
        },
      ]);
    });

    it('should let any other failure through unchanged', async () => {
      const outage = new Error('connection lost');
      repository.findByIdForUpdate.mockResolvedValue(category(3));
      repository.delete.mockRejectedValue(outage);

      await expect(sut.remove(3)).rejects.toBe(outage);
    });
  });
});
