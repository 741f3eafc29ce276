import { HOLD_EXPIRY_QUEUE } from '../../src/adoptions/adoptions.service.js';

/** Runs one statement and answers its rows: `t.dataSource.query`, or a pg client's rows. */
export type Query = (sql: string, params: unknown[]) => Promise<Record<string, unknown>[]>;

const ISO = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;
const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', ${ISO})`;

/**
 * The clock moves past the adoption's hold, without waiting for it: an open adoption's hold
 * is set a second in the past (its queued expiry, the job of that hold, says so too), and
 * every expiry job of the adoption still queued comes due now, the stale ones of earlier
 * holds included, which go first (a subject's jobs run in order). A closed adoption's jobs
 * only come due. The engine (`next_attempt_at <= now()`) and the handler (the job's hold is
 * the adoption's) then see what they would see once the time had come.
 */
export async function holdPasses(query: Query, adoptionId: number): Promise<void> {
  await query(
    `WITH held AS (
       SELECT id, hold_expires_at FROM adoptions
        WHERE id = $2 AND status IN ('requested', 'approved') FOR UPDATE
     ), moved AS (
       UPDATE adoptions a
          SET hold_expires_at = date_trunc('milliseconds', now()) - interval '1 second'
         FROM held WHERE a.id = held.id
       RETURNING ${iso('held.hold_expires_at')} AS old_hold, ${iso('a.hold_expires_at')} AS new_hold
     )
     UPDATE outbox_messages o
        SET next_attempt_at = now(),
            event = CASE WHEN o.event->>'holdExpiresAt' = (SELECT old_hold FROM moved)
                         THEN jsonb_set(o.event, '{holdExpiresAt}', to_jsonb((SELECT new_hold FROM moved)))
                         ELSE o.event END
      WHERE o.consumer = $1 AND (o.event->>'adoptionId')::bigint = $2 AND o.failed_at IS NULL`,
    [HOLD_EXPIRY_QUEUE, adoptionId],
  );
}

/** The adoption's expiry jobs still queued (done ones are gone). */
export async function queuedExpiries(query: Query, adoptionId: number): Promise<number> {
  const [{ count }] = await query(
    `SELECT count(*)::int AS count FROM outbox_messages
      WHERE consumer = $1 AND (event->>'adoptionId')::bigint = $2`,
    [HOLD_EXPIRY_QUEUE, adoptionId],
  );
  return count as number;
}
