import { beforeEach, describe, expect, it, jest } from '@jest/globals';
import {
  CategoriesRepository,
  CategoryInUseError,
  CategoryNameTakenError,
} from './categories.repository.js';
import { CategoriesService } from './categories.service.js';
import type { Category } from './category.entity.js';
import { refusal } from '../../test/support/errors.js';

function category(id: number, name = `category ${id}`): Category {
  const at = new Date(Date.UTC(2026, 0, 1));
  return { id, name, description: null, version: 1, createdAt: at, updatedAt: at };
}

/** Every repository method a stub. */
function fakeRepository() {
  return {
    findAll: jest.fn<CategoriesRepository['findAll']>(),
    findById: jest.fn<CategoriesRepository['findById']>(),
    insert: jest.fn<CategoriesRepository['insert']>(),
    update: jest.fn<CategoriesRepository['update']>(),
    delete: jest.fn<CategoriesRepository['delete']>(),
  } satisfies Record<keyof CategoriesRepository, unknown>;
}

describe(CategoriesService.name, () => {
  let repository: ReturnType<typeof fakeRepository>;
  let sut: CategoriesService;

  beforeEach(() => {
    repository = fakeRepository();
    sut = new CategoriesService(repository as unknown as CategoriesRepository);
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

    it('should answer 409 CONFLICT naming the field when the name is taken', async () => {
      repository.insert.mockRejectedValue(new CategoryNameTakenError());

      const error = await refusal(sut.create({ name: 'dogs' }));

      expect(error.getStatus()).toBe(409);
      expect(error.code).toBe('CONFLICT');
      expect(error.message).toBe('name is already taken');
      expect(error.details).toEqual({ field: 'name' });
    });
  });

  describe('update', () => {
    it('should answer 404 CATEGORY_NOT_FOUND when nothing matched and the category does not exist', async () => {
      repository.update.mockResolvedValue(false);
      repository.findById.mockResolvedValue(null);

      const error = await refusal(sut.update(41, { name: 'Cats' }, ['1']));

      expect(error.code).toBe('CATEGORY_NOT_FOUND');
    });

    it('should write only at the versions If-Match names, and at any for *', async () => {
      repository.update.mockResolvedValue(true);
      repository.findById.mockResolvedValue(category(1));

      await sut.update(1, { name: 'Cats' }, ['3', 'W-not-a-version', '4']);
      await sut.update(1, { name: 'Cats' }, '*');

      expect(repository.update.mock.calls.map((call) => call[2])).toEqual([[3, 4], undefined]);
    });

    it('should answer 412 PRECONDITION_FAILED with the current ETag when nothing matched', async () => {
      repository.update.mockResolvedValue(false);
      repository.findById.mockResolvedValue({ ...category(1), version: 6 });

      const error = await refusal(sut.update(1, { name: 'Cats' }, ['5']));

      expect(error.getStatus()).toBe(412);
      expect(error.details).toEqual({ currentEtag: '"6"' });
    });

    it('should answer 409 CONFLICT naming the field when the new name is taken', async () => {
      repository.findById.mockResolvedValue(category(1, 'Dogs'));
      repository.update.mockRejectedValue(new CategoryNameTakenError());

      const error = await refusal(sut.update(1, { name: 'Cats' }));

      expect(error.code).toBe('CONFLICT');
      expect(error.details).toEqual({ field: 'name' });
    });
  });

  describe('remove', () => {
    it('should answer 404 CATEGORY_NOT_FOUND when nothing was deleted and the category does not exist', async () => {
      repository.delete.mockResolvedValue(false);
      repository.findById.mockResolvedValue(null);

      const error = await refusal(sut.remove(41));

      expect(error.getStatus()).toBe(404);
      expect(error.code).toBe('CATEGORY_NOT_FOUND');
    });

    it('should answer 409 CATEGORY_IN_USE when pets still belong to the category', async () => {
      repository.delete.mockRejectedValue(new CategoryInUseError());

      const error = await refusal(sut.remove(3));

      expect(error.getStatus()).toBe(409);
      expect(error.code).toBe('CATEGORY_IN_USE');
      expect(error.message).toBe('Category 3 still has pets; move or delete them first');
    });

    it('should let any other failure through unchanged', async () => {
      const outage = new Error('connection lost');
      repository.delete.mockRejectedValue(outage);

      await expect(sut.remove(3)).rejects.toBe(outage);
    });
  });
});
