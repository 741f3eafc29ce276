import { describe, expect, it } from '@jest/globals';
import type { PetRow } from '../pets/pets.service.js';
import { checkRecord, planOf, refusalOf } from './import-rows-check.js';

const CATEGORIES = new Map([['dogs', 1]]);

const pet = (fields: Partial<PetRow> = {}): PetRow => ({
  id: 9,
  name: 'Rex',
  status: 'available',
  photoUrls: [],
  age: null,
  breed: null,
  description: null,
  externalId: 'S-1',
  createdAt: new Date(),
  updatedAt: new Date(),
  categoryId: 1,
  categoryName: 'Dogs',
  categoryDescription: null,
  tags: [{ id: 1, name: 'calm' }],
  versionTag: '1.1',
  heldBy: null,
  ...fields,
});

describe(checkRecord.name, () => {
  it('should match the category by name in any case and validate the rest as a create', () => {
    const { valid, errors } = checkRecord(
      { row: 3, fields: { name: ' Rex ', category: 'DOGS', status: 'available' } },
      CATEGORIES,
      'create',
    );
    expect(errors).toEqual([]);
    expect(valid).toEqual({ row: 3, dto: expect.objectContaining({ name: 'Rex', categoryId: 1 }) });
  });

  it('should refuse an unknown category, a categoryId of its own, unsafe text and, in upsert mode, no externalId', () => {
    const check = (fields: Record<string, unknown>) =>
      checkRecord({ row: 1, fields }, CATEGORIES, 'upsert').errors.map((e) => e.field);

    expect(check({ name: 'Rex', category: 'Cats', status: 'available', externalId: 'x' })).toEqual([
      'category',
    ]);
    expect(check({ name: 'Rex', category: 'Dogs', status: 'available', categoryId: 2 })).toEqual([
      'categoryId',
      'externalId',
    ]);
    expect(check({ name: 'R\0x', category: 'Dogs', status: 'available' })).toEqual(['name']);
  });
});

describe(planOf.name, () => {
  const dto = { name: 'Rex', categoryId: 1, status: 'available' as const, tags: ['calm'] };

  it('should leave a pet its row describes as it is, tags compared as a set', () => {
    expect(planOf({ ...dto, tags: ['calm', 'calm'], externalId: 'S-1' }, pet()).kind).toBe(
      'unchanged',
    );
  });

  it('should write only what differs, clearing what the row leaves out', () => {
    expect(planOf({ ...dto, name: 'Max', tags: undefined }, pet({ breed: 'Pug' }))).toEqual({
      kind: 'update',
      pet: expect.anything(),
      changes: { name: 'Max', breed: null, tags: [] },
    });
  });

  it('should refuse a status move the pet cannot make, and any move of a held pet', () => {
    expect(refusalOf(planOf({ ...dto, status: 'sold' }, pet()), 4)).toEqual({
      row: 4,
      field: 'status',
      message: 'a pet cannot move from available to sold',
    });
    const held = pet({ status: 'pending', heldBy: 7 });
    expect(refusalOf(planOf({ ...dto, status: 'available' }, held), 4)?.field).toBe('status');
    expect(refusalOf(planOf({ ...dto, status: 'pending' }, held), 4)).toBeUndefined();
  });
});
