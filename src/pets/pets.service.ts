import { HttpStatus, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { paginationOf, type Pagination } from '../common/dto/pagination-query.dto.js';
import { ApiException } from '../common/errors/api-exception.js';
import { isForeignKeyViolation, violatedConstraint } from '../common/errors/database-errors.js';
import type { CreatePetDto } from './dto/create-pet.dto.js';
import type { ListPetsQueryDto } from './dto/list-pets-query.dto.js';
import type { UpdatePetDto } from './dto/update-pet.dto.js';
import { decodeCursor, encodeCursor } from './pet-cursor.js';
import { Pet } from './pet.entity.js';
import {
  insertPetQuery,
  listPetsQuery,
  SELECT_PET_BY_ID,
  updatePetQuery,
  type PetRow,
} from './pets.repository.js';
import { allowedNextStatuses, isAllowedMove, PET_STATUSES, type PetStatus } from './pet-status.js';

/** Most photo URLs a pet holds, as the create/update validation allows. */
export const MAX_PHOTO_URLS = 20;

/**
 * Work another module does when a pet is deleted. It runs inside the deleting transaction
 * (after the pet's row is locked, before it goes) and returns what to do once that commits.
 */
export type PetRemovalHook = (
  petId: string,
  manager: EntityManager,
) => Promise<() => Promise<void>>;

/**
 * Work another module does when a PUT replaces a pet's photoUrls: it runs inside the update's
 * transaction with the URLs kept, and returns what to do once that commits.
 */
export type PhotoUrlsReplacedHook = (
  petId: string,
  photoUrls: string[],
  manager: EntityManager,
) => Promise<() => Promise<void>>;

export interface PetPage {
  pets: PetRow[];
  pagination: Pagination;
}

const petNotFound = (id: string) => ApiException.notFound('PET_NOT_FOUND', `Pet ${id} not found`);

const photoUrlsFull = (id: string) =>
  new ApiException(
    HttpStatus.CONFLICT,
    'CONFLICT',
    `Pet ${id} already has ${MAX_PHOTO_URLS} photo URLs`,
    { field: 'photoUrls', max: MAX_PHOTO_URLS },
  );

function invalidTransition(from: PetStatus, to: PetStatus): ApiException {
  return new ApiException(
    HttpStatus.CONFLICT,
    'INVALID_STATUS_TRANSITION',
    `A pet cannot move from ${from} to ${to}`,
    { from, to, allowed: allowedNextStatuses(from) },
  );
}

@Injectable()
export class PetsService {
  private readonly removalHooks: PetRemovalHook[] = [];
  private readonly photoUrlsHooks: PhotoUrlsReplacedHook[] = [];

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async list(query: ListPetsQueryDto): Promise<PetPage> {
    const cursor = query.cursor ? decodeCursor(query.cursor, query) : undefined;
    const offset = cursor?.offset ?? query.offset ?? 0;
    const { sql, params, countSql, countParams } = listPetsQuery({
      category: query.category,
      status: query.status,
      limit: query.limit,
      offset,
      after: cursor && { createdAt: cursor.createdAt, id: cursor.id },
    });
    const pets = await this.dataSource.query<(PetRow & { total: number })[]>(sql, params);
    // An empty page carries no total; only past the start can there still be matches.
    const total =
      pets[0]?.total ??
      (offset > 0
        ? (await this.dataSource.query<{ total: number }[]>(countSql, countParams))[0].total
        : 0);

    const pagination = paginationOf(query.limit, offset, pets.length, total);
    const last = pets.at(-1);
    if (pagination.hasMore && last) {
      pagination.nextCursor = encodeCursor({
        createdAt: last.createdAt.toISOString(),
        id: last.id,
        offset: offset + pets.length,
        category: query.category ?? null,
        status: query.status ?? null,
      });
    }
    return { pets, pagination };
  }

  findOne(id: string): Promise<PetRow> {
    return this.load(this.dataSource.manager, id);
  }

  async create(dto: CreatePetDto): Promise<PetRow> {
    const { tags, ...fields } = dto;
    const { sql, params } = insertPetQuery({ ...fields, photoUrls: fields.photoUrls ?? [] });
    // Without tags a single statement inserts and reads back; with them, one transaction.
    if (!tags?.length) {
      const [pet] = await this.write(dto, () => this.dataSource.query<PetRow[]>(sql, params));
      return pet;
    }
    return this.dataSource.transaction(async (manager) => {
      const [pet] = await this.write(dto, () => manager.query<PetRow[]>(sql, params));
      await this.replaceTags(manager, String(pet.id), tags);
      return this.load(manager, String(pet.id));
    });
  }

  async update(id: string, dto: UpdatePetDto): Promise<PetRow> {
    const { tags, ...fields } = dto;
    const to = dto.status;
    const fromStatuses = to && PET_STATUSES.filter((from) => isAllowedMove(from, to));
    const { sql, params } = updatePetQuery(id, fields, fromStatuses);
    const apply = async (manager: EntityManager) => {
      const [pet] = await this.write(dto, () => manager.query<PetRow[]>(sql, params));
      if (pet) return pet;
      // Nothing matched: the pet is gone, or its status (read now) does not allow the move.
      const [current] = await manager.query<{ status: PetStatus }[]>(
        'SELECT status FROM pets WHERE id = $1',
        [id],
      );
      if (!current) throw petNotFound(id);
      throw invalidTransition(current.status, to ?? current.status);
    };
    const { photoUrls } = fields;
    if (tags === undefined && photoUrls === undefined) return apply(this.dataSource.manager);
    const [pet, afterCommit] = await this.dataSource.transaction(async (manager) => {
      await apply(manager);
      if (tags !== undefined) await this.replaceTags(manager, id, tags);
      const cleanups: (() => Promise<void>)[] = [];
      if (photoUrls) {
        for (const hook of this.photoUrlsHooks) cleanups.push(await hook(id, photoUrls, manager));
      }
      return [await this.load(manager, id), cleanups] as const;
    });
    for (const cleanup of afterCommit) await cleanup();
    return pet;
  }

  /** Lets a module keep what it stores for a pet's photos in step with a replaced photoUrls. */
  onPhotoUrlsReplaced(hook: PhotoUrlsReplacedHook): void {
    this.photoUrlsHooks.push(hook);
  }

  /**
   * Deletes the pet and what other modules keep for it. The row lock comes first, so an
   * upload that commits meanwhile is either seen by the hooks or finds the pet gone.
   */
  async remove(id: string): Promise<void> {
    const afterCommit = await this.dataSource.transaction(async (manager) => {
      const locked = await manager.query<unknown[]>(
        'SELECT id FROM pets WHERE id = $1 FOR UPDATE',
        [id],
      );
      if (locked.length === 0) throw petNotFound(id);
      const cleanups: (() => Promise<void>)[] = [];
      for (const hook of this.removalHooks) cleanups.push(await hook(id, manager));
      await manager.delete(Pet, id);
      return cleanups;
    });
    for (const cleanup of afterCommit) await cleanup();
  }

  /** Lets a module that depends on pets take part in deletions without pets depending on it. */
  onRemove(hook: PetRemovalHook): void {
    this.removalHooks.push(hook);
  }

  async assertExists(id: string): Promise<void> {
    const rows = await this.dataSource.query<unknown[]>('SELECT 1 FROM pets WHERE id = $1', [id]);
    if (rows.length === 0) throw petNotFound(id);
  }

  /** Checked before costly work on the pet's behalf; appendPhotoUrl enforces it for real. */
  async assertCanAddPhoto(id: string): Promise<void> {
    const rows = await this.dataSource.query<{ count: number }[]>(
      'SELECT cardinality(photo_urls) AS count FROM pets WHERE id = $1',
      [id],
    );
    if (rows.length === 0) throw petNotFound(id);
    if (rows[0].count >= MAX_PHOTO_URLS) throw photoUrlsFull(id);
  }

  /** Adds one URL to the pet's photoUrls, within the caller's transaction when given one. */
  async appendPhotoUrl(
    id: string,
    url: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<void> {
    const [rows] = await manager.query<[unknown[], number]>(
      `UPDATE pets SET photo_urls = array_append(photo_urls, $2), updated_at = clock_timestamp()
       WHERE id = $1 AND cardinality(photo_urls) < $3 RETURNING id`,
      [id, url, MAX_PHOTO_URLS],
    );
    if (rows.length > 0) return;
    const exists = await manager.query<unknown[]>('SELECT 1 FROM pets WHERE id = $1', [id]);
    throw exists.length === 0 ? petNotFound(id) : photoUrlsFull(id);
  }

  private async load(manager: EntityManager, id: string): Promise<PetRow> {
    const [pet] = await manager.query<PetRow[]>(SELECT_PET_BY_ID, [id]);
    if (!pet) throw petNotFound(id);
    return pet;
  }

  /** Runs a write, reporting an unknown categoryId as the request's mistake. */
  private async write<T>(dto: { categoryId?: number }, statement: () => Promise<T>): Promise<T> {
    try {
      return await statement();
    } catch (error) {
      if (isForeignKeyViolation(error) && violatedConstraint(error) === 'FK_pets_category') {
        throw ApiException.validation([
          { field: 'categoryId', message: `category ${dto.categoryId} does not exist` },
        ]);
      }
      throw error;
    }
  }

  /** Tags are created on first use; the pet's set is replaced as a whole. */
  private async replaceTags(manager: EntityManager, petId: string, names: string[]): Promise<void> {
    await manager.query('DELETE FROM pet_tags WHERE pet_id = $1', [petId]);
    const unique = [...new Set(names)];
    if (unique.length === 0) return;
    // New tags are inserted (and so locked) in one order, the names' byte order: two writes
    // of the same new tags in opposite orders would otherwise each wait for the other (40P01).
    await manager.query(
      `INSERT INTO tags (name)
       SELECT name FROM unnest($1::text[]) AS u(name) ORDER BY name COLLATE "C"
       ON CONFLICT (name) DO NOTHING`,
      [unique],
    );
    await manager.query(
      `INSERT INTO pet_tags (pet_id, tag_id) SELECT $1, id FROM tags WHERE name = ANY($2::text[])`,
      [petId, unique],
    );
  }
}
