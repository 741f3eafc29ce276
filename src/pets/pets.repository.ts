import { Injectable } from '@nestjs/common';
import { InjectTransactionHost } from '@nestjs-cls/transactional';
import { isForeignKeyViolation, violatedConstraint } from '../common/errors/database-errors.js';
import { PreparedStatements } from '../database/prepared-statements.js';
import type { TxHost } from '../database/transactions.js';
import type { PetActor } from './pet-actor.js';
import type { PetChangedField, PetEventType } from './pet-events.js';
import type { PetStatus } from './pet-status.js';

/** A pet as the read queries return it: one row with its category and tags. */
export interface PetRow {
  id: number;
  name: string;
  status: PetStatus;
  photoUrls: string[];
  age: number | null;
  breed: string | null;
  description: string | null;
  createdAt: Date;
  updatedAt: Date;
  categoryId: number;
  categoryName: string;
  categoryDescription: string | null;
  tags: { id: number; name: string }[];
  /** The pet's ETag, unquoted (see `versionTag`). */
  versionTag: string;
}

/**
 * A pet's version tag: its row version and its category's, as the response embeds the
 * category (a rename changes the pet's representation too).
 */
const versionTag = (categoryVersion: string) => `p.version || '.' || ${categoryVersion}`;
const CURRENT_VERSION_TAG = versionTag('(SELECT version FROM categories WHERE id = p.category_id)');

// Hand-written SQL on the hot paths: one round trip per request, rows mapped explicitly
// (no entity hydration, no to-many join that would break LIMIT).
/** The read shape's columns of pet `p` and category `c`, its tags read from `tagsFrom` (as `t`). */
const petColumns = (tagsFrom: string) => `
  p.id, p.name, p.status, p.photo_urls AS "photoUrls", p.age, p.breed, p.description,
  p.created_at AS "createdAt", p.updated_at AS "updatedAt",
  c.id AS "categoryId", c.name AS "categoryName", c.description AS "categoryDescription",
  ${versionTag('c.version')} AS "versionTag",
  COALESCE((SELECT json_agg(json_build_object('id', t.id, 'name', t.name) ORDER BY t.name)
              FROM ${tagsFrom}), '[]') AS tags`;

const PET_COLUMNS = petColumns(
  'pet_tags pt JOIN tags t ON t.id = pt.tag_id WHERE pt.pet_id = p.id',
);

/** What a failed conditional update reads to say why it failed. */
export interface PetState {
  status: PetStatus;
  versionTag: string;
}

/** One category's pets by status, as `inventory` reads them. */
export type InventoryRow = { id: number; name: string } & Record<PetStatus, number>;

export const SELECT_PET_BY_ID = `
  SELECT ${PET_COLUMNS}
    FROM pets p JOIN categories c ON c.id = p.category_id
   WHERE p.id = $1`;

interface PetListFilters {
  category?: string;
  status?: PetStatus;
  limit: number;
  offset: number;
  after?: { createdAt: string; id: number };
}

/**
 * The page and the exact total in one statement: `total` is an uncorrelated sub-select
 * (evaluated once) over the per-(category, status) counters that triggers keep.
 */
function listPetsQuery(filters: PetListFilters): {
  sql: string;
  params: unknown[];
  countSql: string;
  countParams: unknown[];
} {
  const params: unknown[] = [];
  const param = (value: unknown) => `$${params.push(value)}`;
  const petWhere: string[] = [];
  const countWhere: string[] = [];
  if (filters.category !== undefined) {
    const category = `(SELECT id FROM categories WHERE lower(name) = lower(${param(filters.category)}))`;
    petWhere.push(`p.category_id = ${category}`);
    countWhere.push(`category_id = ${category}`);
  }
  if (filters.status !== undefined) {
    const status = `${param(filters.status)}::pet_status`;
    petWhere.push(`p.status = ${status}`);
    countWhere.push(`status = ${status}`);
  }
  const countSql = `SELECT COALESCE(sum(count), 0)::int8 AS total FROM pet_counts${where(countWhere)}`;
  const countParams = [...params];
  if (filters.after) {
    petWhere.push(
      `(p.created_at, p.id) < (${param(filters.after.createdAt)}::timestamptz, ${param(filters.after.id)}::int8)`,
    );
  }
  // The page is cut in a sub-query first: in one query, the tag sub-select and the join ran
  // for every row OFFSET skips too (776 ms instead of 5 ms at offset 10,000).
  const order = 'ORDER BY p.created_at DESC, p.id DESC';
  const sql = `
    SELECT ${PET_COLUMNS}, (${countSql}) AS total
      FROM (SELECT * FROM pets p${where(petWhere)}
             ${order}
             LIMIT ${param(filters.limit)}${filters.after ? '' : ` OFFSET ${param(filters.offset)}`}) p
      JOIN categories c ON c.id = p.category_id
     ${order}`;
  return { sql, params, countSql, countParams };
}

const where = (conditions: string[]) =>
  conditions.length ? ` WHERE ${conditions.join(' AND ')}` : '';

/** Request fields as columns, in one place for INSERT and UPDATE. */
const WRITE_COLUMNS = {
  name: 'name',
  categoryId: 'category_id',
  status: 'status',
  photoUrls: 'photo_urls',
  age: 'age',
  breed: 'breed',
  description: 'description',
} as const;
type PetWriteFields = Partial<Record<keyof typeof WRITE_COLUMNS, unknown>>;

type Param = (value: unknown) => string;

/** A statement's parameters, numbered as they are added. */
function parameters(initial: unknown[] = []): { params: unknown[]; param: Param } {
  const params = [...initial];
  return { params, param: (value) => `$${params.push(value)}` };
}

/** The CTE a write reads the pet back into, and records its events from (`recordEvents`). */
const READ_BACK = 'readback';

/** Reads back, in the read shape and as the `readback` CTE, what the `changed` CTE wrote. */
const readBack = (columns = PET_COLUMNS) =>
  `${READ_BACK} AS (SELECT ${columns} FROM changed p JOIN categories c ON c.id = p.category_id)`;

/**
 * Records the events of the pet read back as `readback`, in the statement or transaction
 * of the change, after the pet's row is written or locked: a second write of the pet waits
 * for the first to commit before it takes its `sequence`, which is thus the pet's commit
 * order. `events` adds to `readback r` the FROM items giving `e.type`, `e.changed_fields`,
 * `e.status_from` and `e.status_to`, in the order the events happened. The snapshot is the
 * read-back row itself, the PetRow that toPetResponse maps (see `petRowOfSnapshot`).
 */
function recordEvents(param: Param, actor: PetActor, events: string, occurredAt: string): string {
  return `recorded AS (
    INSERT INTO pet_events (id, pet_id, type, occurred_at, actor_user_id, actor_api_key_prefix,
                            changed_fields, status_from, status_to, pet)
    SELECT 'evt_' || replace(gen_random_uuid()::text, '-', ''), r.id, e.type, ${occurredAt},
           ${param(actor.userId)}::int8, ${param(actor.apiKeyPrefix)}::text,
           e.changed_fields, e.status_from, e.status_to, to_jsonb(r)
      FROM ${READ_BACK} r, ${events})`;
}

/** One event of `type` per pet read back, dated by the write (`updatedAt`) unless told. */
const recordOne = (
  param: Param,
  actor: PetActor,
  type: PetEventType,
  occurredAt = 'r."updatedAt"',
) =>
  recordEvents(
    param,
    actor,
    `(SELECT ${param(type)}::text AS type, NULL::text[] AS changed_fields,
             NULL::pet_status AS status_from, NULL::pet_status AS status_to) e`,
    occurredAt,
  );

/**
 * An update's events from `diff d` (its "changedFields" and "statusFrom"): `pet.updated`
 * when a field other than status changed, then `pet.status_changed` when the status did;
 * none for an update that changed nothing.
 */
const recordUpdateEvents = (param: Param, actor: PetActor, diff: string) =>
  recordEvents(
    param,
    actor,
    `${diff} d,
     LATERAL (VALUES (1, 'pet.updated', d."changedFields", NULL::pet_status, NULL::pet_status),
                     (2, 'pet.status_changed', NULL, d."statusFrom", r.status))
          AS e(position, type, changed_fields, status_from, status_to)
     WHERE (e.position = 1 AND cardinality(e.changed_fields) > 0)
        OR (e.position = 2 AND e.status_from <> e.status_to)
     ORDER BY e.position`,
    'r."updatedAt"',
  );

/** The fields of an update whose value it changed, as `changedFields` names them. */
export interface PetChanges {
  /** Request fields other than status, in the request DTO's order. */
  changedFields: string[];
  /** The status the update started from. */
  statusFrom: PetStatus;
}

/**
 * With tags, the links are written and the tags read back in the same statement, from the
 * tags table: links written by a statement are not visible to its own sub-selects.
 */
function insertPetQuery(
  fields: PetWriteFields,
  tags: string[],
  actor: PetActor,
): { sql: string; params: unknown[] } {
  const entries = Object.entries(fields).filter(([, value]) => value !== undefined);
  const columns = entries.map(([field]) => WRITE_COLUMNS[field as keyof typeof WRITE_COLUMNS]);
  const { params, param } = parameters();
  const ctes = [
    `changed AS (INSERT INTO pets (${columns.join(', ')})
                 VALUES (${entries.map(([, value]) => param(value)).join(', ')}) RETURNING *)`,
  ];
  if (tags.length === 0) {
    ctes.push(readBack());
  } else {
    ctes.push(
      `pet_tag AS (SELECT id, name FROM tags WHERE name = ANY(${param(tags)}::text[]))`,
      `linked AS (INSERT INTO pet_tags (pet_id, tag_id) SELECT changed.id, pet_tag.id FROM changed, pet_tag)`,
      readBack(petColumns('pet_tag t')),
    );
  }
  ctes.push(recordOne(param, actor, 'pet.created'));
  return { sql: `WITH ${ctes.join(',\n')}\nSELECT * FROM ${READ_BACK}`, params };
}

/** Conditions of an update beyond the pet's id; the update changes nothing unless all hold. */
interface UpdateConditions {
  /** The statuses the pet may move from. */
  fromStatuses?: readonly PetStatus[];
  /** Version tags of which the pet's must be one (If-Match). */
  versionTags?: string[];
}

/** The request fields an update compares, as columns, in the request DTO's order. */
const COMPARED_COLUMNS = (Object.keys(WRITE_COLUMNS) as (keyof typeof WRITE_COLUMNS)[])
  .filter((field) => field !== 'status')
  .map((field) => {
    // Fails to compile for a written field that the API's changedFields cannot name.
    const named: PetChangedField = field;
    return [named, WRITE_COLUMNS[field]] as const;
  });

/**
 * One statement. The pet's row is locked first (`old`, FOR UPDATE), which also reads the
 * values the update starts from, those of the last committed write: the update reports the
 * fields it changed (`changedFields`, compared with IS DISTINCT FROM, photoUrls as a list)
 * and the status it moved from. With `recordAs`, it records its events too.
 *
 * With `fromStatuses` the update is conditional on the status read at the statement's start
 * (`before`): when another move commits first, PostgreSQL re-checks the row, finds a
 * different status and updates nothing, so two moves from one status cannot both win.
 * `versionTags` is checked the same way, so If-Match and the write are one atomic step.
 */
function updatePetQuery(
  id: number,
  fields: PetWriteFields,
  { fromStatuses, versionTags }: UpdateConditions,
  recordAs: PetActor | undefined,
): { sql: string; params: unknown[] } {
  const { params, param } = parameters([id]);
  const written = Object.entries(fields).filter(([, value]) => value !== undefined);
  const assignments = written.map(
    ([field, value]) => `${WRITE_COLUMNS[field as keyof typeof WRITE_COLUMNS]} = ${param(value)}`,
  );
  assignments.push('updated_at = clock_timestamp()', 'version = p.version + 1');
  const comparisons = COMPARED_COLUMNS.filter(
    ([field]) => fields[field as keyof PetWriteFields] !== undefined,
  ).map(
    ([field, column]) => `CASE WHEN p.${column} IS DISTINCT FROM old.${column} THEN '${field}' END`,
  );
  const changedFields = `array_remove(ARRAY[${comparisons.join(', ')}]::text[], NULL)`;
  const conditions = ['p.id = $1'];
  const from = ['old'];
  const ctes: string[] = [];
  if (fromStatuses) {
    ctes.push('before AS (SELECT status FROM pets WHERE id = $1)');
    from.unshift('before');
    conditions.push(
      'p.status = before.status',
      `before.status = ANY(${param(fromStatuses)}::pet_status[])`,
    );
  }
  if (versionTags) {
    conditions.push(`${CURRENT_VERSION_TAG} = ANY(${param(versionTags)}::text[])`);
  }
  ctes.push(
    'old AS (SELECT * FROM pets WHERE id = $1 FOR UPDATE)',
    `changed AS (UPDATE pets p SET ${assignments.join(', ')}
                   FROM ${from.join(', ')}
                  WHERE ${conditions.join(' AND ')}
                 RETURNING p.*, ${changedFields} AS "changedFields", old.status AS "statusFrom")`,
    readBack(),
  );
  if (recordAs) ctes.push(recordUpdateEvents(param, recordAs, 'changed'));
  const sql = `WITH ${ctes.join(',\n')}
    SELECT r.*, d."changedFields", d."statusFrom" FROM ${READ_BACK} r, changed d`;
  return { sql, params };
}

/** A recorded change of a pet, as its history lists it. */
export interface PetEventRow {
  sequence: number;
  id: string;
  type: PetEventType;
  occurredAt: Date;
  actorUserId: number | null;
  actorApiKeyPrefix: string | null;
  changedFields: string[] | null;
  statusFrom: PetStatus | null;
  statusTo: PetStatus | null;
}

/** A recorded change still to publish, with the pet as the change left it. */
export interface PendingPetEventRow extends PetEventRow {
  petId: number;
  pet: PetRow;
}

const EVENT_COLUMNS = `
  sequence, id, type, occurred_at AS "occurredAt", actor_user_id AS "actorUserId",
  actor_api_key_prefix AS "actorApiKeyPrefix", changed_fields AS "changedFields",
  status_from AS "statusFrom", status_to AS "statusTo"`;

/** The snapshot (`to_jsonb` of a read-back row) as the PetRow it was. */
function petRowOfSnapshot(snapshot: Record<string, unknown>): PetRow {
  const row = snapshot as unknown as PetRow & { createdAt: string; updatedAt: string };
  return { ...row, createdAt: new Date(row.createdAt), updatedAt: new Date(row.updatedAt) };
}

/** Held by the instance publishing events, for its transaction (see MIGRATION_LOCK_KEY). */
const PUBLISH_LOCK_KEY = 727_274_002;

/** A write named a category that does not exist (the pets' foreign key refused it). */
export class UnknownCategoryError extends Error {
  constructor() {
    super('unknown category');
  }
}

/**
 * The pets module's only door to the database. Every method joins the transaction in
 * progress, if any (see database/transactions.ts); without one it uses the pool.
 */
@Injectable()
export class PetsRepository {
  constructor(
    @InjectTransactionHost() private readonly txHost: TxHost,
    private readonly prepared: PreparedStatements,
  ) {}

  /** A page and the filters' total; an empty page past the start counts on its own. */
  async findPage(filters: PetListFilters): Promise<{ pets: PetRow[]; total: number }> {
    const { sql, params, countSql, countParams } = listPetsQuery(filters);
    const pets = await this.prepared.query<(PetRow & { total: number })[]>(
      this.txHost.tx,
      sql,
      params,
    );
    // An empty page carries no total; only past the start can there still be matches.
    const total =
      pets[0]?.total ??
      (filters.offset > 0
        ? (await this.txHost.tx.query<{ total: number }[]>(countSql, countParams))[0].total
        : 0);
    return { pets, total };
  }

  /**
   * Pets by status in every category, by name, from the trigger-kept counters: one row per
   * category, whatever the number of pets, and one snapshot, so the counts agree.
   */
  async inventory(): Promise<InventoryRow[]> {
    return this.txHost.tx.query<InventoryRow[]>(`
      SELECT c.id, c.name,
             COALESCE(sum(pc.count) FILTER (WHERE pc.status = 'available'), 0)::int8 AS available,
             COALESCE(sum(pc.count) FILTER (WHERE pc.status = 'pending'), 0)::int8 AS pending,
             COALESCE(sum(pc.count) FILTER (WHERE pc.status = 'sold'), 0)::int8 AS sold
        FROM categories c LEFT JOIN pet_counts pc ON pc.category_id = c.id
       GROUP BY c.id
       ORDER BY c.name, c.id`);
  }

  async findById(id: number): Promise<PetRow | undefined> {
    const [pet] = await this.prepared.query<PetRow[]>(this.txHost.tx, SELECT_PET_BY_ID, [id]);
    return pet;
  }

  /** Records `pet.created` by `actor`. `tags` must exist already (see `upsertTags`). */
  async insert(fields: PetWriteFields, tags: string[], actor: PetActor): Promise<PetRow> {
    const { sql, params } = insertPetQuery(fields, tags, actor);
    const [pet] = await refusingUnknownCategory(() =>
      this.prepared.query<PetRow[]>(this.txHost.tx, sql, params),
    );
    return pet;
  }

  /**
   * The pet as updated and what the update changed; `undefined` when nothing matched: no
   * such pet, or one of `conditions` did not hold at the statement's start. With
   * `recordAs`, the update's events are recorded in the same statement; without it, the
   * caller records them with `recordUpdate` once the rest of its transaction is written.
   */
  async update(
    id: number,
    fields: PetWriteFields,
    conditions: UpdateConditions,
    recordAs: PetActor | undefined,
  ): Promise<{ pet: PetRow; changes: PetChanges } | undefined> {
    const { sql, params } = updatePetQuery(id, fields, conditions, recordAs);
    const [row] = await refusingUnknownCategory(() =>
      this.prepared.query<(PetRow & PetChanges)[]>(this.txHost.tx, sql, params),
    );
    if (!row) return undefined;
    const { changedFields, statusFrom, ...pet } = row;
    return { pet, changes: { changedFields, statusFrom } };
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
  ): Promise<PetRow | undefined> {
    const { params, param } = parameters([id]);
    const diff = `(SELECT ${param(changes.changedFields)}::text[] AS "changedFields",
                          ${param(changes.statusFrom)}::pet_status AS "statusFrom")`;
    const sql = `
      WITH ${READ_BACK} AS (${SELECT_PET_BY_ID}),
      ${recordUpdateEvents(param, actor, diff)}
      SELECT * FROM ${READ_BACK}`;
    const [pet] = await this.prepared.query<PetRow[]>(this.txHost.tx, sql, params);
    return pet;
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
   * Records `pet.image_added` by `actor`. False when nothing was appended: no such pet, or
   * it already holds `max` URLs.
   */
  async appendPhotoUrl(id: number, url: string, max: number, actor: PetActor): Promise<boolean> {
    const { params, param } = parameters([id, url, max]);
    const rows = await this.txHost.tx.query<unknown[]>(
      `WITH changed AS (
         UPDATE pets SET photo_urls = array_append(photo_urls, $2),
                         updated_at = clock_timestamp(), version = version + 1
          WHERE id = $1 AND cardinality(photo_urls) < $3 RETURNING *),
       ${readBack()},
       ${recordOne(param, actor, 'pet.image_added')}
       SELECT id FROM ${READ_BACK}`,
      params,
    );
    return rows.length > 0;
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

  /** Records `pet.deleted` by `actor`, the pet as it was its snapshot. */
  async delete(id: number, actor: PetActor): Promise<void> {
    const { params, param } = parameters([id]);
    // The tags are still read: a statement does not see its own changes, and the links'
    // cascade runs at its end.
    await this.txHost.tx.query(
      `WITH changed AS (DELETE FROM pets WHERE id = $1 RETURNING *),
       ${readBack()},
       ${recordOne(param, actor, 'pet.deleted', 'clock_timestamp()')}
       SELECT id FROM ${READ_BACK}`,
      params,
    );
  }

  /**
   * A page of the pet's history, newest first, with its total and whether the pet exists
   * now, in one statement.
   */
  async findHistoryPage(
    petId: number,
    page: { limit: number; offset: number; beforeSequence?: number },
  ): Promise<{ events: PetEventRow[]; total: number; petExists: boolean }> {
    const { params, param } = parameters([petId]);
    const before =
      page.beforeSequence === undefined ? '' : ` AND sequence < ${param(page.beforeSequence)}`;
    const offset = page.beforeSequence === undefined ? ` OFFSET ${param(page.offset)}` : '';
    const [row] = await this.txHost.tx.query<
      { total: number; petExists: boolean; events: (PetEventRow & { occurredAt: string })[] }[]
    >(
      `SELECT (SELECT count(*) FROM pet_events WHERE pet_id = $1)::int8 AS total,
              EXISTS (SELECT 1 FROM pets WHERE id = $1) AS "petExists",
              COALESCE((SELECT json_agg(e ORDER BY e.sequence DESC)
                          FROM (SELECT ${EVENT_COLUMNS} FROM pet_events
                                 WHERE pet_id = $1${before}
                                 ORDER BY sequence DESC LIMIT ${param(page.limit)}${offset}) e),
                       '[]') AS events`,
      params,
    );
    const events = row.events.map((event) => ({
      ...event,
      occurredAt: new Date(event.occurredAt),
    }));
    return { events, total: row.total, petExists: row.petExists };
  }

  /**
   * Takes the publishing lock until the current transaction ends; false when another
   * transaction holds it.
   */
  async lockPublishing(): Promise<boolean> {
    const [{ locked }] = await this.txHost.tx.query<{ locked: boolean }[]>(
      'SELECT pg_try_advisory_xact_lock($1) AS locked',
      [PUBLISH_LOCK_KEY],
    );
    return locked;
  }

  /** The oldest `limit` events not yet published, oldest first. */
  async findUnpublished(limit: number): Promise<PendingPetEventRow[]> {
    const rows = await this.txHost.tx.query<
      (PendingPetEventRow & { pet: Record<string, unknown> })[]
    >(
      `SELECT ${EVENT_COLUMNS}, pet_id AS "petId", pet
         FROM pet_events WHERE published_at IS NULL ORDER BY sequence LIMIT $1`,
      [limit],
    );
    return rows.map((row) => ({ ...row, pet: petRowOfSnapshot(row.pet) }));
  }

  async markPublished(sequences: number[]): Promise<void> {
    await this.txHost.tx.query(
      'UPDATE pet_events SET published_at = now() WHERE sequence = ANY($1::int8[])',
      [sequences],
    );
  }

  /**
   * Creates the tags not used before. Writers call it first, before the pet's row: new tags
   * are then locked before the (category, status) counter row in every write, and in one
   * order, the names' byte order, so two writes cannot each wait for the other (40P01).
   */
  async upsertTags(names: string[]): Promise<void> {
    await this.txHost.tx.query(
      `INSERT INTO tags (name)
       SELECT name FROM unnest($1::text[]) AS u(name) ORDER BY name COLLATE "C"
       ON CONFLICT (name) DO NOTHING`,
      [[...new Set(names)]],
    );
  }

  /**
   * The pet's tags become `names`, which must exist already (see `upsertTags`); returns the
   * names of those it had. Under the pet's row lock, so these are its last committed tags.
   */
  async replaceTags(petId: number, names: string[]): Promise<string[]> {
    const [removed] = await this.txHost.tx.query<[{ name: string }[], number]>(
      `DELETE FROM pet_tags pt USING tags t
        WHERE pt.pet_id = $1 AND t.id = pt.tag_id RETURNING t.name`,
      [petId],
    );
    if (names.length > 0) {
      await this.txHost.tx.query(
        `INSERT INTO pet_tags (pet_id, tag_id) SELECT $1, id FROM tags WHERE name = ANY($2::text[])`,
        [petId, names],
      );
    }
    return removed.map((tag) => tag.name);
  }
}

async function refusingUnknownCategory<T>(statement: () => Promise<T>): Promise<T> {
  try {
    return await statement();
  } catch (error) {
    if (isForeignKeyViolation(error) && violatedConstraint(error) === 'FK_pets_category') {
      throw new UnknownCategoryError();
    }
    throw error;
  }
}
