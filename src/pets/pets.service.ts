import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { MAX_PHOTO_URLS } from '../common/contract-limits.js';
import { paginationOf, type Pagination } from '../common/dto/pagination-query.dto.js';
import { ApiException } from '../common/errors/api-exception.js';
import {
  preconditionFailed,
  satisfiesIfMatch,
  type IfMatch,
} from '../common/http/conditional-requests.js';
import type { CreatePetDto } from './dto/create-pet.dto.js';
import type { ListPetsQueryDto } from './dto/list-pets-query.dto.js';
import type { UpdatePetDto } from './dto/update-pet.dto.js';
import { decodeCursor, encodeCursor } from './pet-cursor.js';
import type { PetRemovalHook, PhotoUrlsReplacedHook } from './pet-hooks.js';
import { allowedNextStatuses, isAllowedMove, PET_STATUSES, type PetStatus } from './pet-status.js';
import {
  PetsRepository,
  UnknownCategoryError,
  type InventoryRow,
  type PetRow,
} from './pets.repository.js';

interface PetPage {
  pets: PetRow[];
  pagination: Pagination;
}

/** Also ParseIdPipe's answer on the pet routes (and media's), for ids that cannot exist. */
export const petNotFound = (id: number | string) =>
  new ApiException('PET_NOT_FOUND', `Pet ${id} not found`);

const photoUrlsFull = (id: number) =>
  new ApiException('CONFLICT', `Pet ${id} already has ${MAX_PHOTO_URLS} photo URLs`, {
    field: 'photoUrls',
    max: MAX_PHOTO_URLS,
  });

function invalidTransition(from: PetStatus, to: PetStatus): ApiException {
  return new ApiException('INVALID_STATUS_TRANSITION', `A pet cannot move from ${from} to ${to}`, {
    from,
    to,
    allowed: allowedNextStatuses(from),
  });
}

@Injectable()
export class PetsService {
  private readonly removalHooks: PetRemovalHook[] = [];
  private readonly photoUrlsHooks: PhotoUrlsReplacedHook[] = [];

  constructor(private readonly pets: PetsRepository) {}

  async list(query: ListPetsQueryDto): Promise<PetPage> {
    const cursor = query.cursor ? decodeCursor(query.cursor, query) : undefined;
    const offset = cursor?.offset ?? query.offset ?? 0;
    const { pets, total } = await this.pets.findPage({
      category: query.category,
      status: query.status,
      limit: query.limit,
      offset,
      after: cursor && { createdAt: cursor.createdAt, id: cursor.id },
    });

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

  /** Pets by status, overall and per category (every category, by name). */
  async inventory(): Promise<Record<PetStatus, number> & { byCategory: InventoryRow[] }> {
    const byCategory = await this.pets.inventory();
    const sum = (status: PetStatus) => byCategory.reduce((total, row) => total + row[status], 0);
    return { available: sum('available'), pending: sum('pending'), sold: sum('sold'), byCategory };
  }

  findOne(id: number): Promise<PetRow> {
    return this.load(id);
  }

  async create(dto: CreatePetDto): Promise<PetRow> {
    const { tags, ...fields } = dto;
    const row = { ...fields, photoUrls: fields.photoUrls ?? [] };
    // One statement inserts, links the tags and reads back; new tags are created before it.
    if (!tags?.length) return this.write(dto, () => this.pets.insert(row));
    return this.pets.transaction(async (manager) => {
      await this.pets.upsertTags(tags, manager);
      return this.write(dto, () => this.pets.insert(row, tags, manager));
    });
  }

  /** With `ifMatch`, only if the pet's version tag is one of it (412 otherwise). */
  async update(id: number, dto: UpdatePetDto, ifMatch?: IfMatch): Promise<PetRow> {
    const { tags, ...fields } = dto;
    const to = dto.status;
    const conditions = {
      fromStatuses: to && PET_STATUSES.filter((from) => isAllowedMove(from, to)),
      versionTags: ifMatch === '*' ? undefined : ifMatch,
    };
    const apply = async (manager?: EntityManager) => {
      const pet = await this.write(dto, () => this.pets.update(id, fields, conditions, manager));
      if (pet) return pet;
      // Nothing matched: the pet is gone, its version is not the one the client read, or its
      // status does not allow the move (all read now). The precondition is reported first.
      const current = await this.pets.stateOf(id, manager);
      if (!current) throw petNotFound(id);
      if (ifMatch && !satisfiesIfMatch(ifMatch, current.versionTag)) {
        throw preconditionFailed(current.versionTag);
      }
      throw invalidTransition(current.status, to ?? current.status);
    };
    const { photoUrls } = fields;
    if (tags === undefined && photoUrls === undefined) return apply();
    const [pet, afterCommit] = await this.pets.transaction(async (manager) => {
      if (tags?.length) await this.pets.upsertTags(tags, manager);
      await apply(manager);
      if (tags !== undefined) await this.pets.replaceTags(id, tags, manager);
      const cleanups: (() => Promise<void>)[] = [];
      if (photoUrls) {
        for (const hook of this.photoUrlsHooks) cleanups.push(await hook(id, photoUrls, manager));
      }
      return [await this.load(id, manager), cleanups] as const;
    });
    for (const cleanup of afterCommit) await cleanup();
    return pet;
  }

  /** Registers work to run with every PUT that replaces photoUrls (see pet-hooks.ts). */
  onPhotoUrlsReplaced(hook: PhotoUrlsReplacedHook): void {
    this.photoUrlsHooks.push(hook);
  }

  /**
   * Deletes the pet and what other modules keep for it. The row lock comes first, so an
   * upload that commits meanwhile is either seen by the hooks or finds the pet gone, and
   * `ifMatch` is checked against the pet's version, which nothing can change before the
   * delete.
   */
  async remove(id: number, ifMatch?: IfMatch): Promise<void> {
    const afterCommit = await this.pets.transaction(async (manager) => {
      const versionTag = await this.pets.lock(id, manager);
      if (versionTag === undefined) throw petNotFound(id);
      if (ifMatch && !satisfiesIfMatch(ifMatch, versionTag)) throw preconditionFailed(versionTag);
      const cleanups: (() => Promise<void>)[] = [];
      for (const hook of this.removalHooks) cleanups.push(await hook(id, manager));
      await this.pets.delete(id, manager);
      return cleanups;
    });
    for (const cleanup of afterCommit) await cleanup();
  }

  /** Registers work to run with every pet deletion (see pet-hooks.ts). */
  onRemove(hook: PetRemovalHook): void {
    this.removalHooks.push(hook);
  }

  async assertExists(id: number): Promise<void> {
    if (!(await this.pets.exists(id))) throw petNotFound(id);
  }

  /** Checked before costly work on the pet's behalf; appendPhotoUrl enforces it for real. */
  async assertCanAddPhoto(id: number): Promise<void> {
    const count = await this.pets.photoUrlCount(id);
    if (count === undefined) throw petNotFound(id);
    if (count >= MAX_PHOTO_URLS) throw photoUrlsFull(id);
  }

  /** Adds one URL to the pet's photoUrls, within the caller's transaction when given one. */
  async appendPhotoUrl(id: number, url: string, manager?: EntityManager): Promise<void> {
    if (await this.pets.appendPhotoUrl(id, url, MAX_PHOTO_URLS, manager)) return;
    throw (await this.pets.exists(id, manager)) ? photoUrlsFull(id) : petNotFound(id);
  }

  private async load(id: number, manager?: EntityManager): Promise<PetRow> {
    const pet = await this.pets.findById(id, manager);
    if (!pet) throw petNotFound(id);
    return pet;
  }

  /** Runs a write, reporting an unknown categoryId as the request's mistake. */
  private async write<T>(dto: { categoryId?: number }, statement: () => Promise<T>): Promise<T> {
    try {
      return await statement();
    } catch (error) {
      if (error instanceof UnknownCategoryError) {
        throw ApiException.validation([
          { field: 'categoryId', message: `category ${dto.categoryId} does not exist` },
        ]);
      }
      throw error;
    }
  }
}
