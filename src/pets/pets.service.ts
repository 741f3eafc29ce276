import { Injectable } from '@nestjs/common';
import { InjectTransactionHost } from '@nestjs-cls/transactional';
import { TtlCache } from '../common/cache/ttl-cache.js';
import { MAX_PHOTO_URLS } from '../common/contract-limits.js';
import { CursorSigner } from '../common/dto/page-cursor.js';
import { paginationOf, type Pagination } from '../common/dto/pagination-query.dto.js';
import { ApiException } from '../common/errors/api-exception.js';
import {
  preconditionFailed,
  satisfiesIfMatch,
  type IfMatch,
} from '../common/http/conditional-requests.js';
import type { TxHost } from '../database/transactions.js';
import { DomainEvents } from '../events/domain-events.js';
import type { CreatePetDto } from './dto/create-pet.dto.js';
import type { ExportPetsQueryDto } from './dto/export-pets-query.dto.js';
import type { ListPetsQueryDto } from './dto/list-pets-query.dto.js';
import type { PetFiltersQueryDto } from './dto/pet-filters-query.dto.js';
import type { UpdatePetDto } from './dto/update-pet.dto.js';
import type { PetActor } from './pet-actor.js';
import { decodeCursor, encodeCursor, filtersTag } from './pet-cursor.js';
import { defaultSort } from './pet-sort.js';
import { petNotFound } from './pet-not-found.js';
import { allowedNextStatuses, isAllowedMove, PET_STATUSES, type PetStatus } from './pet-status.js';
import { PetsRepository, type PetWrite } from './pets.repository.js';
import type { InventoryRow, PetRow } from './sql/pet-reads.sql.js';

/** A pet as the service answers it, for the modules that read pets through it. */
export type { PetRow } from './sql/pet-reads.sql.js';
import type { PetFacetsRow, PetFilters, SortKey } from './sql/pet-search.sql.js';
import type { PetChanges } from './sql/pet-writes.sql.js';

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

/** A create that took its tags to exist found one gone. */
class TagsGoneError extends Error {}

// Names of tags seen committed, for a create to skip creating them (PetsService.create).
const KNOWN_TAGS_TTL_MS = 10 * 60_000;
const KNOWN_TAGS_MAX_ENTRIES = 10_000;

// Pets read per statement by the export: large enough that a batch's round trip is small
// beside its lines, small enough that a batch's text is a few hundred kilobytes.
const EXPORT_BATCH = 1_000;

/**
 * Pets and their tags. Every write records its events with the change (`pet_events`, in the
 * same statement) and publishes them in its transaction (docs/events.md): that is how other
 * modules take part in a pet's writes, media removing a deleted pet's images for one.
 */
@Injectable()
export class PetsService {
  private readonly knownTags = new TtlCache<string, true>(
    KNOWN_TAGS_TTL_MS,
    KNOWN_TAGS_MAX_ENTRIES,
  );

  constructor(
    private readonly pets: PetsRepository,
    private readonly events: DomainEvents,
    @InjectTransactionHost() private readonly txHost: TxHost,
    private readonly cursors: CursorSigner,
  ) {}

  async list(query: ListPetsQueryDto): Promise<PetPage> {
    const filters = filtersOf(query);
    const sort = query.sort ?? defaultSort(query.q);
    const cursor = query.cursor
      ? decodeCursor(this.cursors, query.cursor, { ...filters, offset: query.offset }, sort)
      : undefined;
    const offset = cursor?.offset ?? query.offset ?? 0;
    const { pets, total } = await this.pets.findPage({
      ...filters,
      sort,
      limit: query.limit,
      offset,
      after: cursor && { key: cursor.key, id: cursor.id },
    });

    const pagination = paginationOf(query.limit, offset, pets.length, total);
    const last = pets.at(-1);
    if (pagination.hasMore && last) {
      pagination.nextCursor = encodeCursor(this.cursors, {
        key: cursorKey(last.sortKey),
        id: last.id,
        offset: offset + pets.length,
        filters: filtersTag(filters, sort),
      });
    }
    return { pets, pagination };
  }

  /**
   * The lines of every pet the filters match, in the query's format, newest id first, in
   * batches read as the consumer asks for them: whatever their number, the export holds
   * one batch at a time.
   */
  export(query: ExportPetsQueryDto): AsyncGenerator<string[]> {
    return this.pets.exportBatches(filtersOf(query), EXPORT_BATCH, query.format);
  }

  /** Counts of the pets the filters match: overall, by status, category and top tags. */
  facets(query: PetFiltersQueryDto): Promise<PetFacetsRow> {
    return this.pets.facets(filtersOf(query));
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

  /** The pets holding these externalIds, in no order (an import matches its rows by them). */
  findByExternalIds(externalIds: string[]): Promise<PetRow[]> {
    return externalIds.length === 0
      ? Promise.resolve([])
      : this.pets.findByExternalIds(externalIds);
  }

  /**
   * Records and publishes `pet.created` by `actor`. New tags are created first; when every tag
   * is one this instance has seen committed, that statement is skipped (one round trip of
   * five): tags are never deleted, and if one was by hand, the create starts again with it.
   */
  async create(dto: CreatePetDto, actor: PetActor): Promise<PetRow> {
    const names = [...new Set(dto.tags ?? [])];
    // Only a transaction of its own can be rolled back and started again.
    const known =
      !this.txHost.isTransactionActive() && names.every((name) => this.knownTags.get(name));
    const pet = await this.insert(dto, names, actor, !known).catch((error: unknown) => {
      if (!(error instanceof TagsGoneError)) throw error;
      return this.insert(dto, names, actor, true);
    });
    for (const name of names) this.knownTags.set(name, true);
    return pet;
  }

  /**
   * `create` of each of `dtos` by `actor` (each pet's tags, history and `pet.created` as
   * its create's), in three statements however many pets there are (new tags, then the
   * pets with their links and events, then the outbox rows), within the caller's
   * transaction: an import's batch. A row that fails a constraint (an externalId taken, a
   * category gone) fails them all; the pets in the order of `dtos`.
   */
  async createMany(dtos: CreatePetDto[], actor: PetActor): Promise<PetRow[]> {
    if (dtos.length === 0) return [];
    return this.txHost.withTransaction(async () => {
      const tags = dtos.flatMap((dto) => dto.tags ?? []);
      if (tags.length) await this.pets.upsertTags(tags);
      const written = await this.pets.insertMany(
        dtos.map(({ tags = [], ...fields }) => ({
          fields: { ...fields, photoUrls: fields.photoUrls ?? [] },
          tags,
        })),
        actor,
      );
      await this.events.publish(...written.flatMap((write) => write.events));
      return written.map((write) => write.pet);
    });
  }

  /**
   * `names`: the create's distinct tags. Without `upsertTags`, a tag that does not exist rolls
   * the create back (TagsGoneError).
   */
  private insert(
    dto: CreatePetDto,
    names: string[],
    actor: PetActor,
    upsertTags: boolean,
  ): Promise<PetRow> {
    const { tags = [], ...fields } = dto;
    const row = { ...fields, photoUrls: fields.photoUrls ?? [] };
    return this.txHost.withTransaction(async () => {
      // One statement inserts, links the tags, reads back and records; new tags come first.
      if (upsertTags && tags.length) await this.pets.upsertTags(tags);
      const written = await this.pets.insert(row, tags, actor);
      if (!upsertTags && written.pet.tags.length < names.length) throw new TagsGoneError();
      return this.published(written);
    });
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
      const updated = await this.pets.update(id, fields, conditions, recordAs);
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
    return this.txHost.withTransaction(async () => {
      if (tags === undefined) {
        // One statement updates, reads back and records.
        return this.published(await apply(actor));
      }
      // The events are recorded last, once the tags are written.
      if (tags.length) await this.pets.upsertTags(tags);
      const { changes: written } = await apply(undefined);
      const tagsChanged = !sameNames(await this.pets.replaceTags(id, tags), tags);
      const changes: PetChanges = tagsChanged
        ? { ...written, changedFields: [...written.changedFields, 'tags'] }
        : written;
      const recorded = await this.pets.recordUpdate(id, changes, actor);
      if (!recorded) throw petNotFound(id);
      return this.published(recorded);
    });
  }

  /**
   * Moves the pet from status `from` (only) to `to` and records `pet.status_changed` by
   * `actor`, naming the adoption, within the caller's transaction: how an adoption moves its
   * pet. Undefined when
   * the pet is gone or its status is not `from` at the statement's start (a concurrent move
   * won).
   */
  async moveStatus(
    id: number,
    from: PetStatus,
    to: PetStatus,
    actor: PetActor & { adoptionId: number },
  ): Promise<PetRow | undefined> {
    return this.txHost.withTransaction(async () => {
      const moved = await this.pets.update(id, { status: to }, { fromStatuses: [from] }, actor);
      return moved && this.published(moved);
    });
  }

  /**
   * `moveStatus` for many pets at once, each for its own adoption, in one statement within the
   * caller's transaction, publishing each one's event: the pets moved (those in `from` at the
   * statement's start), by id.
   */
  async moveStatuses(
    moves: { petId: number; adoptionId: number }[],
    from: PetStatus,
    to: PetStatus,
    actor: PetActor,
  ): Promise<Map<number, PetRow>> {
    if (moves.length === 0) return new Map();
    const written = await this.pets.moveForAdoptions(moves, from, to, actor);
    await this.events.publish(...written.flatMap((write) => write.events));
    return new Map(written.map(({ pet }) => [pet.id, pet]));
  }

  /**
   * Deletes the pet. The row lock comes first, so an upload that commits meanwhile is either
   * deleted with the pet or finds it gone, and `ifMatch` is checked against the pet's
   * version, which nothing can change before the delete.
   */
  async remove(id: number, actor: PetActor, ifMatch?: IfMatch): Promise<void> {
    await this.txHost.withTransaction(async () => {
      const versionTag = await this.pets.lock(id);
      if (versionTag === undefined) throw petNotFound(id);
      if (ifMatch && !satisfiesIfMatch(ifMatch, versionTag)) throw preconditionFailed(versionTag);
      const deleted = await this.pets.delete(id, actor);
      if (!deleted) throw petNotFound(id);
      await this.published(deleted);
    });
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
      const appended = await this.pets.appendPhotoUrl(id, url, MAX_PHOTO_URLS, actor);
      if (!appended) throw (await this.pets.exists(id)) ? photoUrlsFull(id) : petNotFound(id);
      await this.published(appended);
    });
  }

  private async load(id: number): Promise<PetRow> {
    const pet = await this.pets.findById(id);
    if (!pet) throw petNotFound(id);
    return pet;
  }

  /** Publishes what a write recorded, in its transaction, and returns the pet it wrote. */
  private async published({ pet, events }: PetWrite): Promise<PetRow> {
    await this.events.publish(...events);
    return pet;
  }
}

/** The query's filters as the repository takes them. */
function filtersOf({ tag, ...query }: PetFiltersQueryDto): PetFilters {
  return {
    category: query.category,
    status: query.status,
    q: query.q,
    tags: tag,
    breed: query.breed,
    minAge: query.minAge,
    maxAge: query.maxAge,
    createdAfter: query.createdAfter,
    createdBefore: query.createdBefore,
    externalId: query.externalId,
  };
}

/** A sort key as a cursor carries it: timestamps as toISOString() writes them. */
const cursorKey = (key: SortKey | Date): SortKey => (key instanceof Date ? key.toISOString() : key);

/** Tags compare as the API shows them: a set of names. */
function sameNames(before: string[], after: string[]): boolean {
  const wanted = new Set(after);
  return before.length === wanted.size && before.every((name) => wanted.has(name));
}
