import type pg from 'pg';
import type { TestApp } from './test-app.js';

/** Polls `condition` until it holds, for work the service does after its response. */
export async function waitFor(condition: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Waits until the outbox has no message left for `consumers`: each event was handled (so a
 * mail not sent by then never will be), or given up.
 */
export function outboxDrained(t: TestApp, consumers: string[]): Promise<void> {
  return waitFor(async () => {
    const [{ count }] = await t.dataSource.query<{ count: number }[]>(
      'SELECT count(*)::int AS count FROM outbox_messages WHERE consumer = ANY($1) AND failed_at IS NULL',
      [consumers],
    );
    return count === 0;
  }, 10_000);
}

/**
 * Waits until `count` sessions wait on a lock (those whose query contains `queryPart`, when
 * given). `client` may be the session holding the lock, inside its transaction: the
 * statistics views are a snapshot per transaction, so each poll clears it first.
 */
export async function waitForLockWaiters(
  client: pg.Client,
  count: number,
  queryPart = '',
): Promise<void> {
  await waitFor(async () => {
    await client.query('SELECT pg_stat_clear_snapshot()');
    const { rows } = await client.query<{ waiting: number }>(
      "SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND strpos(query, $1) > 0",
      [queryPart],
    );
    return rows[0].waiting >= count;
  }, 10_000);
}
