import { Injectable } from '@nestjs/common';
import { InjectTransactionHost } from '@nestjs-cls/transactional';
import { MAX_PHOTO_URLS } from '../common/contract-limits.js';
import { paginationOf, type Pagination } from '../common/dto/pagination-query.dto.js';
import { ApiException } from '../common/errors/api-exception.js';
import {
  preconditionFailed,
  satisfiesIfMatch,
  type IfMatch,
} from '../common/http/conditional-requests.js';
import { afterCommit, type TxHost } from '../database/transactions.js';
import type { CreatePetDto } from './dto/create-pet.dto.js';
import type { ListPetsQueryDto } from './dto/list-pets-query.dto.js';
import type { UpdatePetDto } from './dto/update-pet.dto.js';
import type { PetActor } from './pet-actor.js';
import { decodeCursor, encodeCursor } from './pet-cursor.js';
import { PetHistoryService } from './pet-history.service.js';
import type { PetRemovalHook, PhotoUrlsReplacedHook } from './pet-hooks.js';
import { petNotFound } from './pet-not-found.js';
import { allowedNextStatuses, isAllowedMove, PET_STATUSES, type PetStatus } from './pet-status.js';
import {
  PetsRepository,
  UnknownCategoryError,
  type InventoryRow,
  type PetChanges,
  type PetRow,
} from './pets.repository.js';

interface PetPage {
  pets: PetRow[];
  pagination: Pagination;
}

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

  constructor(
    private readonly pets: PetsRepository,
    private readonly history: PetHistoryService,
    @InjectTransactionHost() private readonly txHost: TxHost,
  ) {}

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

  /** Records `pet.created` by `actor`; every write records its events with the change. */
  async create(dto: CreatePetDto, actor: PetActor): Promise<PetRow> {
    const { tags, ...fields } = dto;
    const row = { ...fields, photoUrls: fields.photoUrls ?? [] };
    // One statement inserts, links the tags, reads back and records; new tags come before it.
    const pet = tags?.length
      ? await this.txHost.withTransaction(async () => {
          await this.pets.upsertTags(tags);
          return this.write(dto, () => this.pets.insert(row, tags, actor));
        })
      : await this.write(dto, () => this.pets.insert(row, [], actor));
    this.history.notifyRecorded();
    return pet;
  }

  /**
   * With `ifMatch`, only if the pet's version tag is one of it (412 otherwise). Records
   * `pet.updated` with the fields whose value changed, then `pet.status_changed` when the
   * status moved; nothing when nothing changed.
   */
  async update(id: number, dto: UpdatePetDto, actor: PetActor, ifMatch?: IfMatch): Promise<PetRow> {
    const { tags, ...fields } = dto;
    const to = dto.status;
    const conditions = {
      fromStatuses: to && PET_STATUSES.filter((from) => isAllowedMove(from, to)),
      versionTags: ifMatch === '*' ? undefined : ifMatch,
    };
    const apply = async (recordAs: PetActor | undefined) => {
      const updated = await this.write(dto, () =>
        this.pets.update(id, fields, conditions, recordAs),
      );
      if (updated) return updated;
      // Nothing matched: the pet is gone, its version is not the one the client read, or its
      // status does not allow the move (all read now). The precondition is reported first.
      const current = await this.pets.stateOf(id);
      if (!current) throw petNotFound(id);
      if (ifMatch && !satisfiesIfMatch(ifMatch, current.versionTag)) {
        throw preconditionFailed(current.versionTag);
      }
      throw invalidTransition(current.status, to ?? current.status);
    };
    const { photoUrls } = fields;
    if (tags === undefined && photoUrls === undefined) {
      // One statement updates, reads back and records.
      const { pet, changes } = await apply(actor);
      if (recordsEvents(changes, pet)) this.history.notifyRecorded();
      return pet;
    }
    // The events are recorded last, once the tags and the other modules' rows are written.
    return this.txHost.withTransaction(async () => {
      if (tags?.length) await this.pets.upsertTags(tags);
      const { changes: written } = await apply(undefined);
      const tagsChanged =
        tags !== undefined && !sameNames(await this.pets.replaceTags(id, tags), tags);
      const changes = tagsChanged
        ? { ...written, changedFields: [...written.changedFields, 'tags'] }
        : written;
      if (photoUrls) {
        for (const hook of this.photoUrlsHooks) await hook(id, photoUrls);
      }
      const updated = await this.pets.recordUpdate(id, changes, actor);
      if (!updated) throw petNotFound(id);
      if (recordsEvents(changes, updated)) afterCommit(() => this.history.notifyRecorded());
      return updated;
    });
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
  async remove(id: number, actor: PetActor, ifMatch?: IfMatch): Promise<void> {
    await this.txHost.withTransaction(async () => {
      const versionTag = await this.pets.lock(id);
      if (versionTag === undefined) throw petNotFound(id);
      if (ifMatch && !satisfiesIfMatch(ifMatch, versionTag)) throw preconditionFailed(versionTag);
      for (const hook of this.removalHooks) await hook(id);
      await this.pets.delete(id, actor);
      afterCommit(() => this.history.notifyRecorded());
    });
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

  /**
   * Adds one URL to the pet's photoUrls and records `pet.image_added`, within the caller's
   * transaction when there is one.
   */
  appendPhotoUrl(id: number, url: string, actor: PetActor): Promise<void> {
    return this.txHost.withTransaction(async () => {
      if (await this.pets.appendPhotoUrl(id, url, MAX_PHOTO_URLS, actor)) {
        afterCommit(() => this.history.notifyRecorded());
        return;
      }
      throw (await this.pets.exists(id)) ? photoUrlsFull(id) : petNotFound(id);
    });
  }

  private async load(id: number): Promise<PetRow> {
    const pet = await this.pets.findById(id);
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

/** Whether an update recorded events: it changed a field, or moved the status. */
const recordsEvents = (changes: PetChanges, pet: PetRow) =>
  changes.changedFields.length > 0 || changes.statusFrom !== pet.status;

/** Tags compare as the API shows them: a set of names. */
function sameNames(before: string[], after: string[]): boolean {
  const wanted = new Set(after);
  return before.length === wanted.size && before.every((name) => wanted.has(name));
}
