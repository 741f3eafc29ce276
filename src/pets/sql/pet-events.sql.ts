import type { PetActor } from '../pet-actor.js';
import type { PetEventType } from '../pet-events.js';
import { parameters, READ_BACK, type Param } from './statement-parts.js';

/*
 * The pets' change log, `pet_events` (docs/events.md, "History"): each write records its
 * events in its own statement, as the CTE `recorded`, and answers them in the column
 * `"recordedEvents"` (RECORDED_EVENTS), for PetsService to publish.
 */

/**
 * Records the events of the pet read back as `readback`, in the statement or transaction
 * of the change, after the pet's row is written or locked: a second write of the pet waits
 * for the first to commit before it takes its `sequence`, which is thus the pet's commit
 * order. `events` adds to `readback r` the FROM items giving `e.type`, `e.changed_fields`,
 * `e.status_from` and `e.status_to`, in the order the events happened. The snapshot is the
 * read-back row itself, the PetRow that toPetResponse maps (see `petRowOfSnapshot`).
 */
function recordEvents(
  param: Param,
  actor: PetActor,
  events: string,
  occurredAt: string,
  adoptionId?: string,
): string {
  return `recorded AS (
    INSERT INTO pet_events (id, pet_id, type, occurred_at, actor_user_id, actor_api_key_prefix,
                            actor_role, changed_fields, status_from, status_to, adoption_id, pet)
    SELECT 'evt_' || replace(gen_random_uuid()::text, '-', ''), r.id, e.type, ${occurredAt},
           ${param(actor.userId)}::int8, ${param(actor.apiKeyPrefix)}::text,
           ${param(actor.role ?? null)}::user_role,
           e.changed_fields, e.status_from, e.status_to, ${adoptionId ?? `${param(actor.adoptionId ?? null)}::int8`},
           to_jsonb(r)
      FROM ${READ_BACK} r, ${events}
    RETURNING sequence, id, pet_id, type, occurred_at, changed_fields, status_from, status_to,
              adoption_id)`;
}

/** Events of `recorded`, oldest first, as a JSON array (see RecordedPetEvent). */
const EVENTS_AGGREGATE = `json_agg(json_build_object(
            'sequence', sequence, 'id', id, 'type', type, 'occurredAt', occurred_at,
            'changedFields', changed_fields, 'statusFrom', status_from, 'statusTo', status_to,
            'adoptionId', adoption_id)
          ORDER BY sequence)`;

/** The events `recorded` wrote (those `where` keeps), oldest first, as a JSON column. */
const recordedEvents = (where = '') => `
  (SELECT ${EVENTS_AGGREGATE}
     FROM recorded${where}) AS "recordedEvents"`;

/**
 * The events `recorded` wrote, per pet: a FROM item of (pet_id, "recordedEvents"), for a
 * statement that writes many pets to join to its read-back rows (a join, not a sub-select
 * per pet, which would scan every pet's events for each).
 */
export const RECORDED_EVENTS_BY_PET = `
  (SELECT pet_id, ${EVENTS_AGGREGATE} AS "recordedEvents" FROM recorded GROUP BY pet_id)`;

/** The events `recorded` wrote, oldest first, as a JSON column (see RecordedPetEvent). */
export const RECORDED_EVENTS = recordedEvents();

/** One event of `type` per pet read back, dated by the write (`updatedAt`) unless told. */
export const recordOne = (
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
export const recordUpdateEvents = (param: Param, actor: PetActor, diff: string) =>
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

/**
 * A `pet.status_changed` from `from` (a `pet_status` expression) per pet read back, naming
 * the adoption that moved it: `moves m` gives each pet's (m.id, m.adoption_id).
 */
export const recordAdoptionMoves = (param: Param, actor: PetActor, from: string, moves: string) =>
  recordEvents(
    param,
    actor,
    `${moves} m,
     LATERAL (SELECT 'pet.status_changed'::text AS type, NULL::text[] AS changed_fields,
                     ${from} AS status_from, r.status AS status_to) e
     WHERE m.id = r.id`,
    'r."updatedAt"',
    'm.adoption_id',
  );

/** Per pet read back as `r`, the events `recordAdoptionMoves` recorded for it. */
export const recordedEventsOfMove = (moves: string) =>
  recordedEvents(` WHERE adoption_id = (SELECT m.adoption_id FROM ${moves} m WHERE m.id = r.id)`);

/** A page of a pet's history, newest first, with its total and whether the pet exists now. */
export function historyPageQuery(
  petId: number,
  page: { limit: number; offset: number; beforeSequence?: number },
): { sql: string; params: unknown[] } {
  const { params, param } = parameters([petId]);
  const before =
    page.beforeSequence === undefined ? '' : ` AND sequence < ${param(page.beforeSequence)}`;
  const offset = page.beforeSequence === undefined ? ` OFFSET ${param(page.offset)}` : '';
  const sql = `
    SELECT (SELECT count(*) FROM pet_events WHERE pet_id = $1)::int8 AS total,
           EXISTS (SELECT 1 FROM pets WHERE id = $1) AS "petExists",
           COALESCE((SELECT json_agg(e ORDER BY e.sequence DESC)
                       FROM (SELECT sequence, id, type, pet_id AS "petId",
                                    occurred_at AS "occurredAt", actor_user_id AS "actorUserId",
                                    actor_api_key_prefix AS "actorApiKeyPrefix",
                                    actor_role AS "actorRole", changed_fields AS "changedFields",
                                    status_from AS "statusFrom", status_to AS "statusTo",
                                    adoption_id AS "adoptionId", pet
                               FROM pet_events
                              WHERE pet_id = $1${before}
                              ORDER BY sequence DESC LIMIT ${param(page.limit)}${offset}) e),
                    '[]') AS events`;
  return { sql, params };
}
