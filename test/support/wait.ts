import type pg from 'pg';

/** Polls `condition` until it holds, for work the service does after its response. */
export async function waitFor(condition: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
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
