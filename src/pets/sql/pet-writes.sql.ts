import type { PetActor } from '../pet-actor.js';
import type { PetChangedField } from '../pet-events.js';
import type { PetStatus } from '../pet-status.js';
import {
  RECORDED_EVENTS,
  RECORDED_EVENTS_BY_PET,
  recordAdoptionMoves,
  recordedEventsOfMove,
  recordOne,
  recordUpdateEvents,
} from './pet-events.sql.js';
import { CURRENT_VERSION_TAG, SELECT_PET_BY_ID, TAG_LIST } from './pet-reads.sql.js';
import { parameters, READ_BACK, readBack } from './statement-parts.js';

/** Request fields as columns, in one place for INSERT and UPDATE. */
export const WRITE_COLUMNS = {
  name: 'name',
  categoryId: 'category_id',
  status: 'status',
  photoUrls: 'photo_urls',
  age: 'age',
  breed: 'breed',
  description: 'description',
  externalId: 'external_id',
} as const;
export type PetWriteFields = Partial<Record<keyof typeof WRITE_COLUMNS, unknown>>;

/** The fields of an update whose value it changed, as `changedFields` names them. */
export interface PetChanges {
  /** Request fields other than status, in the request DTO's order. */
  changedFields: string[];
  /** The status the update started from. */
  statusFrom: PetStatus;
}

/**
 * With tags, the pet's row holds them (`tag_list`, from the tags table) and the links are
 * written in the same statement. The links carry the pet's age, which the links' trigger
 * would otherwise write in a second version of each (src/database/schema/pet-search.sql).
 */
export function insertPetQuery(
  fields: PetWriteFields,
  tags: string[],
  actor: PetActor,
): { sql: string; params: unknown[] } {
  const entries = Object.entries(fields).filter(([, value]) => value !== undefined);
  const columns: string[] = entries.map(
    ([field]) => WRITE_COLUMNS[field as keyof typeof WRITE_COLUMNS],
  );
  const { params, param } = parameters();
  const values = entries.map(([, value]) => param(value));
  const ctes: string[] = [];
  if (tags.length > 0) {
    ctes.push(`pet_tag AS (SELECT id, name FROM tags WHERE name = ANY(${param(tags)}::text[]))`);
    columns.push('tag_list');
    values.push(`(SELECT ${TAG_LIST} FROM pet_tag t)`);
  }
  ctes.push(`changed AS (INSERT INTO pets (${columns.join(', ')})
                 VALUES (${values.join(', ')}) RETURNING *)`);
  if (tags.length > 0) {
    ctes.push(`linked AS (INSERT INTO pet_tags (pet_id, tag_id, pet_age)
                  SELECT changed.id, pet_tag.id, changed.age FROM changed, pet_tag)`);
  }
  ctes.push(readBack(), recordOne(param, actor, 'pet.created'));
  const sql = `WITH ${ctes.join(',\n')}\nSELECT *, ${RECORDED_EVENTS} FROM ${READ_BACK}`;
  return { sql, params };
}

/** A pet to create with others in one statement (`insertPetsQuery`). */
export interface NewPet {
  fields: PetWriteFields;
  /** Names of tags that exist already. */
  tags: string[];
}

/**
 * Many pets at once, as `insertPetQuery` writes one: the pets, their links to their tags
 * (which exist already) and each one's `pet.created` by `actor`, in one statement whose
 * shape does not depend on the pets (they are one JSON parameter). Each pet takes its id
 * from the identity's sequence first (`input`), in the pets' order, so that its tags and
 * its events are matched to it by id; the pets are answered in that order.
 */
export function insertPetsQuery(
  pets: NewPet[],
  actor: PetActor,
): { sql: string; params: unknown[] } {
  const rows = pets.map(({ fields, tags }) => {
    const row: Record<string, unknown> = { tags };
    for (const [field, column] of Object.entries(WRITE_COLUMNS)) {
      row[column] = fields[field as keyof PetWriteFields] ?? null;
    }
    return row;
  });
  const { params, param } = parameters([JSON.stringify(rows)]);
  const columns = Object.values(WRITE_COLUMNS).join(', ');
  const sql = `
    WITH input AS MATERIALIZED (
      SELECT nextval(pg_get_serial_sequence('pets', 'id')) AS id, i.*
        FROM jsonb_to_recordset($1::jsonb)
          AS i(name text, category_id int8, status pet_status, photo_urls text[], age int4,
               breed text, description text, external_id text, tags text[])),
    changed AS (INSERT INTO pets (id, ${columns}, tag_list) OVERRIDING SYSTEM VALUE
                SELECT i.id, name, category_id, status, COALESCE(photo_urls, '{}'), age, breed,
                       description, external_id,
                       (SELECT ${TAG_LIST} FROM tags t WHERE t.name = ANY(i.tags))
                  FROM input i ORDER BY i.id
                RETURNING *),
    linked AS (INSERT INTO pet_tags (pet_id, tag_id, pet_age)
               SELECT p.id, t.id, p.age
                 FROM changed p JOIN input i ON i.id = p.id JOIN tags t ON t.name = ANY(i.tags)),
    ${readBack()},
    ${recordOne(param, actor, 'pet.created')}
    SELECT r.*, e."recordedEvents"
      FROM ${READ_BACK} r LEFT JOIN ${RECORDED_EVENTS_BY_PET} e ON e.pet_id = r.id
     ORDER BY r.id`;
  return { sql, params };
}

/** Conditions of an update beyond the pet's id; the update changes nothing unless all hold. */
export interface UpdateConditions {
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
export function updatePetQuery(
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
  if (fields.status !== undefined) {
    const holder = fields.status === 'pending' ? (recordAs?.adoptionId ?? null) : null;
    assignments.push(`held_by = ${param(holder)}`);
  }
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
    SELECT r.*, d."changedFields", d."statusFrom"${recordAs ? `, ${RECORDED_EVENTS}` : ''}
      FROM ${READ_BACK} r, changed d`;
  return { sql, params };
}

/**
 * Moves each pet of `moves` from status `from` to `to` for its adoption, in one statement:
 * an adoption's moves of many pets at once (the holds that expire together). A pet not in
 * `from` when its row is locked is left as it is. Each moved pet gets its
 * `pet.status_changed`, naming its adoption, and is read back with it.
 */
export function moveForAdoptionsQuery(
  moves: { petId: number; adoptionId: number }[],
  from: PetStatus,
  to: PetStatus,
  actor: PetActor,
): { sql: string; params: unknown[] } {
  const { params, param } = parameters([
    moves.map((move) => move.petId),
    moves.map((move) => move.adoptionId),
  ]);
  const fromStatus = `${param(from)}::pet_status`;
  const sql = `
    WITH moves AS (SELECT * FROM unnest($1::int8[], $2::int8[]) AS m(id, adoption_id)),
    changed AS (UPDATE pets p SET status = ${param(to)},
                                  held_by = CASE WHEN ${param(to)}::pet_status = 'pending'
                                                 THEN m.adoption_id END,
                                  updated_at = clock_timestamp(), version = p.version + 1
                  FROM moves m WHERE p.id = m.id AND p.status = ${fromStatus}
                RETURNING p.*),
    ${readBack()},
    ${recordAdoptionMoves(param, actor, fromStatus, 'moves')}
    SELECT r.*, ${recordedEventsOfMove('moves')} FROM ${READ_BACK} r`;
  return { sql, params };
}

/**
 * Records an update's events by `actor` and reads the pet back, as the update's last
 * statement in its transaction (the pet's row is locked by then).
 */
export function recordUpdateQuery(
  id: number,
  changes: PetChanges,
  actor: PetActor,
): { sql: string; params: unknown[] } {
  const { params, param } = parameters([id]);
  const diff = `(SELECT ${param(changes.changedFields)}::text[] AS "changedFields",
                        ${param(changes.statusFrom)}::pet_status AS "statusFrom")`;
  const sql = `
    WITH ${READ_BACK} AS (${SELECT_PET_BY_ID}),
    ${recordUpdateEvents(param, actor, diff)}
    SELECT *, ${RECORDED_EVENTS} FROM ${READ_BACK}`;
  return { sql, params };
}

/** Appends `url` unless the pet holds `max` URLs already, and records `pet.image_added`. */
export function appendPhotoUrlQuery(
  id: number,
  url: string,
  max: number,
  actor: PetActor,
): { sql: string; params: unknown[] } {
  const { params, param } = parameters([id, url, max]);
  const sql = `
    WITH changed AS (
      UPDATE pets SET photo_urls = array_append(photo_urls, $2),
                      updated_at = clock_timestamp(), version = version + 1
       WHERE id = $1 AND cardinality(photo_urls) < $3 RETURNING *),
    ${readBack()},
    ${recordOne(param, actor, 'pet.image_added')}
    SELECT *, ${RECORDED_EVENTS} FROM ${READ_BACK}`;
  return { sql, params };
}

/** Deletes the pet and records `pet.deleted`, the pet as it was its snapshot. */
export function deletePetQuery(id: number, actor: PetActor): { sql: string; params: unknown[] } {
  const { params, param } = parameters([id]);
  const sql = `
    WITH changed AS (DELETE FROM pets WHERE id = $1 RETURNING *),
    ${readBack()},
    ${recordOne(param, actor, 'pet.deleted', 'clock_timestamp()')}
    SELECT *, ${RECORDED_EVENTS} FROM ${READ_BACK}`;
  return { sql, params };
}

/** New tags, in the names' byte order (see `PetsRepository.upsertTags`). */
export const UPSERT_TAGS = `INSERT INTO tags (name)
  SELECT name FROM unnest($1::text[]) AS u(name) ORDER BY name COLLATE "C"
  ON CONFLICT (name) DO NOTHING`;

/** A pet's links to its tags removed, with the names of those it had. */
export const UNLINK_TAGS = `DELETE FROM pet_tags pt USING tags t
  WHERE pt.pet_id = $1 AND t.id = pt.tag_id RETURNING t.name`;

/**
 * A pet linked to the tags of these names, which exist already, its age beside each link,
 * and its `tag_list` written to them (to `[]` for none).
 */
export const LINK_TAGS = `WITH linked AS (INSERT INTO pet_tags (pet_id, tag_id, pet_age)
    SELECT p.id, t.id, p.age FROM pets p, tags t WHERE p.id = $1 AND t.name = ANY($2::text[]))
  UPDATE pets SET tag_list = (SELECT ${TAG_LIST} FROM tags t WHERE t.name = ANY($2::text[]))
   WHERE id = $1`;
