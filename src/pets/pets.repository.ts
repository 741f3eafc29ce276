import { Inject, Injectable } from '@nestjs/common';
import { InjectTransactionHost } from '@nestjs-cls/transactional';
import { databaseConfig, type DatabaseConfig } from '../config/database.config.js';
import { PreparedStatements } from '../database/prepared-statements.js';
import type { TxHost } from '../database/transactions.js';
import type { PetActor } from './pet-actor.js';
import type { PetExportFormat } from './pet-export.js';
import type { PetStatus } from './pet-status.js';
import { petEventsOf, type PetEvent, type RecordedPetEvent } from './pet-events.js';
import {
  CURRENT_VERSION_TAG,
  INVENTORY,
  SELECT_PET_BY_ID,
  SELECT_PETS_BY_EXTERNAL_IDS,
  type InventoryRow,
  type PetRow,
  type PetState,
} from './sql/pet-reads.sql.js';
import {
  countedByCounters,
  countedFacetsQuery,
  exportPetsQuery,
  listPetsQuery,
  petFacetsQuery,
  TAG_IDS,
  type TagIds,
  type PetFacetsRow,
  type PetFilters,
  type PetListFilters,
  type PetExportBatch,
  type PetExportRow,
  type PetPageRow,
} from './sql/pet-search.sql.js';
import {
  appendPhotoUrlQuery,
  deletePetQuery,
  insertPetQuery,
  insertPetsQuery,
  LINK_TAGS,
  moveForAdoptionsQuery,
  recordUpdateQuery,
  UNLINK_TAGS,
  updatePetQuery,
  UPSERT_TAGS,
  type NewPet,
  type PetChanges,
  type PetWriteFields,
  type UpdateConditions,
} from './sql/pet-writes.sql.js';

/** A pet as a write left it, and the events the write recorded (none, for some updates). */
export interface PetWrite {
  pet: PetRow;
  events: PetEvent[];
}

type WrittenRow = PetRow & { recordedEvents?: RecordedPetEvent[] | null };

/** The written row as a PetWrite. */
function writeOf({ recordedEvents, ...pet }: WrittenRow, actor: PetActor): PetWrite {
  return { pet, events: petEventsOf(pet, recordedEvents ?? null, actor) };
}

/**
 * The pets module's door to `pets`, `tags` and `pet_tags`; each write records its events in
 * `pet_events` in the same statement (the SQL is in sql/). Every method joins the
 * transaction in progress, if any (see database/transactions.ts); without one it uses the pool.
 * A write naming a category that does not exist fails with the driver's foreign key
 * violation, which the exception filter answers (common/errors/constraint-errors.ts).
 */
@Injectable()
export class PetsRepository {
  constructor(
    @InjectTransactionHost() private readonly txHost: TxHost,
    private readonly prepared: PreparedStatements,
    @Inject(databaseConfig.KEY)
    private readonly database: Pick<DatabaseConfig, 'searchStatementTimeoutMs'>,
  ) {}

  /**
   * A page, each pet with its value of the sort key, and the filters' total; an empty page
   * past the start counts on its own.
   */
  async findPage(
    filters: PetListFilters,
  ): Promise<{ pets: Omit<PetPageRow, 'total'>[]; total: number }> {
    if (countedByCounters(filters)) return this.readPage(filters);
    return this.searching(() => this.readPage(filters));
  }

  private async readPage(
    filters: PetListFilters,
  ): Promise<{ pets: Omit<PetPageRow, 'total'>[]; total: number }> {
    const { sql, params, countSql, countParams, prepare } = listPetsQuery(
      filters,
      await this.tagIds(filters),
    );
    const rows = prepare
      ? await this.prepared.query<PetPageRow[]>(this.txHost.tx, sql, params)
      : await this.txHost.tx.query<PetPageRow[]>(sql, params);
    // An empty page carries no total; only past the start can there still be matches.
    const total =
      rows[0]?.total ??
      (filters.offset > 0 || filters.after
        ? (await this.txHost.tx.query<{ total: number }[]>(countSql, countParams))[0].total
        : 0);
    return { pets: rows.map(({ total: _, ...pet }) => pet), total };
  }

  /**
   * The lines of the pets the filters match, by id descending, in batches of `size`, one
   * statement each (see exportPetsQuery); the filters' tags are looked up once.
   * The next batch is read while the consumer sends the last one (the database works while
   * the socket drains), and no further: a consumer that stops asking stops the reads. A
   * search's batches each run under the search's statement time-out, as its pages do.
   */
  async *exportBatches(
    filters: PetFilters,
    size: number,
    format: PetExportFormat,
  ): AsyncGenerator<string[]> {
    const tagIds = await this.tagIds(filters);
    const read = (batch: PetExportBatch) => {
      const { sql, params, prepare } = exportPetsQuery(filters, tagIds, batch, format);
      const rows = prepare
        ? this.prepared.query<PetExportRow[]>(this.txHost.tx, sql, params)
        : this.searching(() => this.txHost.tx.query<PetExportRow[]>(sql, params));
      // Handled now, thrown when awaited: a batch read ahead may fail while nothing awaits
      // it yet (the client is slow) or ever will (it went away).
      rows.catch(() => undefined);
      return rows;
    };
    let next: Promise<PetExportRow[]> | undefined = read({ limit: size });
    while (next) {
      const rows: PetExportRow[] = await next;
      next = rows.length === size ? read({ beforeId: rows[size - 1].id, limit: size }) : undefined;
      if (rows.length > 0) yield rows.map((row) => row.line);
    }
  }

  /** Counts of the pets the filters match (see petFacetsQuery). */
  async facets(filters: PetFilters): Promise<PetFacetsRow> {
    if (countedByCounters(filters)) {
      const { sql, params } = countedFacetsQuery(filters);
      const [row] = await this.txHost.tx.query<PetFacetsRow[]>(sql, params);
      return row;
    }
    return this.searching(async () => {
      const { sql, params } = petFacetsQuery(filters, await this.tagIds(filters));
      const [row] = await this.txHost.tx.query<PetFacetsRow[]>(sql, params);
      return row;
    });
  }

  /**
   * A search's statements, each cut by the server after SEARCH_STATEMENT_TIMEOUT_MS (SQLSTATE
   * 57014, answered 503): in a transaction of their own, whose `SET LOCAL` ends with it.
   * Searches cost what the data holds (a word every pet has ranks them all), so a bound of
   * their own keeps one from holding a connection and a core for the statement time-out of
   * every statement.
   */
  private searching<T>(work: () => Promise<T>): Promise<T> {
    return this.txHost.withTransaction(async () => {
      await this.txHost.tx.query(
        `SET LOCAL statement_timeout = ${this.database.searchStatementTimeoutMs}`,
      );
      return work();
    });
  }

  /** The ids of the filters' tags (see TagIds); none read when there are no tags. */
  private async tagIds(filters: PetFilters): Promise<TagIds> {
    if (!filters.tags?.length) return new Map();
    const rows = await this.txHost.tx.query<{ tag: string; ids: string[] }[]>(TAG_IDS, [
      filters.tags,
    ]);
    return new Map(rows.map((row) => [row.tag, row.ids]));
  }

  /** Pets by status in every category (see INVENTORY). */
  inventory(): Promise<InventoryRow[]> {
    return this.txHost.tx.query<InventoryRow[]>(INVENTORY);
  }

  async findById(id: number): Promise<PetRow | undefined> {
    const [pet] = await this.prepared.query<PetRow[]>(this.txHost.tx, SELECT_PET_BY_ID, [id]);
    return pet;
  }

  findByExternalIds(externalIds: string[]): Promise<PetRow[]> {
    return this.txHost.tx.query<PetRow[]>(SELECT_PETS_BY_EXTERNAL_IDS, [externalIds]);
  }

  /** Records `pet.created` by `actor`. `tags` must exist already (see `upsertTags`). */
  async insert(fields: PetWriteFields, tags: string[], actor: PetActor): Promise<PetWrite> {
    const { sql, params } = insertPetQuery(fields, tags, actor);
    const [row] = await this.prepared.query<WrittenRow[]>(this.txHost.tx, sql, params);
    return writeOf(row, actor);
  }

  /**
   * Records each pet's `pet.created` by `actor`, in one statement (see insertPetsQuery); the
   * pets in the order given. Their tags must exist already (see `upsertTags`).
   */
  async insertMany(pets: NewPet[], actor: PetActor): Promise<PetWrite[]> {
    const { sql, params } = insertPetsQuery(pets, actor);
    const rows = await this.prepared.query<WrittenRow[]>(this.txHost.tx, sql, params);
    return rows.map((row) => writeOf(row, actor));
  }

  /**
   * The pet as updated, what the update changed and the events it recorded; `undefined`
   * when nothing matched: no such pet, or one of `conditions` did not hold at the
   * statement's start. With `recordAs`, the update's events are recorded in the same
   * statement; without it, the caller records them with `recordUpdate` once the rest of its
   * transaction is written.
   */
  async update(
    id: number,
    fields: PetWriteFields,
    conditions: UpdateConditions,
    recordAs: PetActor | undefined,
  ): Promise<(PetWrite & { changes: PetChanges }) | undefined> {
    const { sql, params } = updatePetQuery(id, fields, conditions, recordAs);
    const [row] = await this.prepared.query<(WrittenRow & PetChanges)[]>(
      this.txHost.tx,
      sql,
      params,
    );
    if (!row) return undefined;
    const { changedFields, statusFrom, ...written } = row;
    return {
      ...(recordAs ? writeOf(written, recordAs) : { pet: written, events: [] }),
      changes: { changedFields, statusFrom },
    };
  }

  /**
   * Moves the pets of `moves` from `from` to `to`, each for its adoption, recording each
   * one's `pet.status_changed`; the pets moved (those in `from`), in no order.
   */
  async moveForAdoptions(
    moves: { petId: number; adoptionId: number }[],
    from: PetStatus,
    to: PetStatus,
    actor: PetActor,
  ): Promise<PetWrite[]> {
    const { sql, params } = moveForAdoptionsQuery(moves, from, to, actor);
    const rows = await this.prepared.query<WrittenRow[]>(this.txHost.tx, sql, params);
    return rows.map((row) => writeOf(row, actor));
  }

  /**
   * Records an update's events by `actor` and reads the pet back, as the update's last
   * statement in its transaction (the pet's row is locked by then); `undefined` when there
   * is no such pet.
   */
  async recordUpdate(
    id: number,
    changes: PetChanges,
    actor: PetActor,
  ): Promise<PetWrite | undefined> {
    const { sql, params } = recordUpdateQuery(id, changes, actor);
    const [row] = await this.prepared.query<WrittenRow[]>(this.txHost.tx, sql, params);
    return row && writeOf(row, actor);
  }

  /** The pet's status and version tag now; `undefined` when there is no such pet. */
  async stateOf(id: number): Promise<PetState | undefined> {
    const [row] = await this.txHost.tx.query<PetState[]>(
      `SELECT status, ${CURRENT_VERSION_TAG} AS "versionTag" FROM pets p WHERE id = $1`,
      [id],
    );
    return row;
  }

  async exists(id: number): Promise<boolean> {
    const rows = await this.txHost.tx.query<unknown[]>('SELECT 1 FROM pets WHERE id = $1', [id]);
    return rows.length > 0;
  }

  /** `undefined` when there is no such pet. */
  async photoUrlCount(id: number): Promise<number | undefined> {
    const [row] = await this.txHost.tx.query<{ count: number }[]>(
      'SELECT cardinality(photo_urls) AS count FROM pets WHERE id = $1',
      [id],
    );
    return row?.count;
  }

  /**
   * Records `pet.image_added` by `actor`. `undefined` when nothing was appended: no such
   * pet, or it already holds `max` URLs.
   */
  async appendPhotoUrl(
    id: number,
    url: string,
    max: number,
    actor: PetActor,
  ): Promise<PetWrite | undefined> {
    const { sql, params } = appendPhotoUrlQuery(id, url, max, actor);
    const [row] = await this.txHost.tx.query<WrittenRow[]>(sql, params);
    return row && writeOf(row, actor);
  }

  /**
   * Locks the pet's row until the transaction ends and returns its version tag (the pet's
   * part cannot change until then); `undefined` when there is no such pet.
   */
  async lock(id: number): Promise<string | undefined> {
    const [row] = await this.txHost.tx.query<{ versionTag: string }[]>(
      `SELECT ${CURRENT_VERSION_TAG} AS "versionTag" FROM pets p WHERE id = $1 FOR UPDATE`,
      [id],
    );
    return row?.versionTag;
  }

  /** Records `pet.deleted` by `actor`; `undefined` when there is no such pet. */
  async delete(id: number, actor: PetActor): Promise<PetWrite | undefined> {
    const { sql, params } = deletePetQuery(id, actor);
    const [row] = await this.txHost.tx.query<WrittenRow[]>(sql, params);
    return row && writeOf(row, actor);
  }

  /**
   * Creates the tags not used before. Writers call it first, before the pet's row: new tags
   * are then locked before the (category, status) counter row in every write, and in one
   * order, the names' byte order, so two writes cannot each wait for the other (40P01).
   */
  async upsertTags(names: string[]): Promise<void> {
    await this.prepared.query(this.txHost.tx, UPSERT_TAGS, [[...new Set(names)]]);
  }

  /**
   * The pet's tags become `names`, which must exist already (see `upsertTags`); returns the
   * names of those it had. Under the pet's row lock, so these are its last committed tags.
   */
  async replaceTags(petId: number, names: string[]): Promise<string[]> {
    const [removed] = await this.prepared.query<[{ name: string }[], number]>(
      this.txHost.tx,
      UNLINK_TAGS,
      [petId],
    );
    await this.prepared.query(this.txHost.tx, LINK_TAGS, [petId, names]);
    return removed.map((tag) => tag.name);
  }
}
