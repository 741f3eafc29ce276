import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { toFieldErrors } from '../common/errors/validation-errors.js';
import { unsafeInputErrors } from '../common/pipes/safe-input.pipe.js';
import { CreatePetDto } from '../pets/dto/create-pet.dto.js';
import { isAllowedMove } from '../pets/pet-status.js';
import type { PetRow } from '../pets/pets.service.js';
import type { ImportRecord } from './import-rows.js';
import type { PetImportError, PetImportMode } from './pet-import-status.js';

/** A row that passed every check, as the create it would be. */
export interface ValidRow {
  row: number;
  dto: CreatePetDto;
}

/** Category ids by lower-case name: names are unique in any case, as the list filter reads them. */
export type CategoryIds = ReadonlyMap<string, number>;

/** A row checked: as its create when it passed, else its errors. */
export interface CheckedRecord {
  valid?: ValidRow;
  errors: PetImportError[];
}

/**
 * A row's own errors: the create DTO's rules exactly as a single create runs them (so the
 * messages read the same), its category matched by name, and in upsert mode an externalId.
 */
export function checkRecord(
  { row, fields }: ImportRecord,
  categoryIds: CategoryIds,
  mode: PetImportMode,
): CheckedRecord {
  if (fields === undefined) {
    return { errors: [{ row, field: 'row', message: 'row must be a JSON object' }] };
  }
  // What the global pipe refuses in any body first (U+0000, prototype keys), refused alone.
  const unsafe = unsafeInputErrors(fields);
  if (unsafe.length > 0) {
    return { errors: unsafe.map(({ field, message }) => bounded(row, field, message)) };
  }
  const { category, ...rest } = fields;
  const errors: PetImportError[] = [];
  let categoryId: number | undefined;
  if (category === undefined || category === null) {
    errors.push({ row, field: 'category', message: 'category is required' });
  } else if (typeof category !== 'string') {
    errors.push({ row, field: 'category', message: 'category must be a category’s name' });
  } else {
    categoryId = categoryIds.get(category.trim().toLowerCase());
    if (categoryId === undefined) {
      errors.push(bounded(row, 'category', `category "${category}" does not exist`));
    }
  }
  // Rows name their category; a categoryId of the row's own is refused as an unknown field.
  if ('categoryId' in rest) {
    errors.push({ row, field: 'categoryId', message: 'property categoryId should not exist' });
  }
  const dto = plainToInstance(CreatePetDto, { ...rest, categoryId: categoryId ?? 1 });
  const fieldErrors = toFieldErrors(
    validateSync(dto, { whitelist: true, forbidNonWhitelisted: true }),
  );
  errors.push(...fieldErrors.map(({ field, message }) => bounded(row, field, message)));
  if (mode === 'upsert' && (rest.externalId === undefined || rest.externalId === null)) {
    errors.push({ row, field: 'externalId', message: 'externalId is required in upsert mode' });
  }
  return errors.length > 0 ? { errors } : { valid: { row, dto }, errors };
}

/** What an upsert does to a pet: creates it, leaves it as it is, or makes these changes. */
export type RowPlan =
  | { kind: 'create' }
  | { kind: 'unchanged'; pet: PetRow }
  | { kind: 'update'; pet: PetRow; changes: Partial<CreatePetDto> };

/**
 * An upsert makes the pet what its row says: a field the row leaves out is cleared (the
 * lists emptied), as an export of the pet would show it. Only what differs is written, the
 * status among it only when it moves (a pet with an open adoption keeps its own).
 */
export function planOf(dto: CreatePetDto, pet: PetRow | undefined): RowPlan {
  if (!pet) return { kind: 'create' };
  const wanted = {
    name: dto.name,
    categoryId: dto.categoryId,
    status: dto.status,
    photoUrls: dto.photoUrls ?? [],
    age: dto.age ?? null,
    breed: dto.breed ?? null,
    description: dto.description ?? null,
    tags: [...new Set(dto.tags ?? [])],
  };
  const changes: Partial<CreatePetDto> = {};
  if (wanted.name !== pet.name) changes.name = wanted.name;
  if (wanted.categoryId !== Number(pet.categoryId)) changes.categoryId = wanted.categoryId;
  if (wanted.status !== pet.status) changes.status = wanted.status;
  if (!sameList(wanted.photoUrls, pet.photoUrls)) changes.photoUrls = wanted.photoUrls;
  if (wanted.age !== pet.age) changes.age = wanted.age;
  if (wanted.breed !== pet.breed) changes.breed = wanted.breed;
  if (wanted.description !== pet.description) changes.description = wanted.description;
  const tags = pet.tags.map((tag) => tag.name);
  if (!sameList([...wanted.tags].sort(), [...tags].sort())) changes.tags = wanted.tags;
  return Object.keys(changes).length === 0
    ? { kind: 'unchanged', pet }
    : { kind: 'update', pet, changes };
}

/** Why a planned update of an existing pet would be refused, as PUT /pets/{id} refuses it. */
export function refusalOf(plan: RowPlan, row: number): PetImportError | undefined {
  if (plan.kind !== 'update' || plan.changes.status === undefined) return undefined;
  const from = plan.pet.status;
  const to = plan.changes.status;
  if (plan.pet.heldBy !== null && plan.pet.heldBy !== undefined) {
    return {
      row,
      field: 'status',
      message: 'the pet has an open adoption; its status moves only through it',
    };
  }
  return isAllowedMove(from, to)
    ? undefined
    : { row, field: 'status', message: `a pet cannot move from ${from} to ${to}` };
}

/** Bounded as the API documents errors: a field named by the file may be of any length. */
const bounded = (row: number, field: string, message: string): PetImportError => ({
  row,
  field: field.slice(0, 100),
  message: message.slice(0, 1000),
});

const sameList = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((value, index) => value === b[index]);
