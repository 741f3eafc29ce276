/**
 * How long one call keeps deleting. A sweep is a recurring job, which runs on the job engine's
 * one worker per instance ahead of mails and webhook fan-outs, and must end well within its
 * claim's lease (60 s), or another instance would take the same run over: a backlog larger
 * than this allows is left to the next period.
 */
export const SWEEP_BUDGET_MS = 5_000;

/**
 * Runs `deleteBatch(batchSize)` until a batch deletes fewer than `batchSize` rows or
 * `budgetMs` has passed, so that a sweep of a large backlog holds no lock for long, nor the
 * job engine; how many rows it deleted in all.
 */
export async function deleteInBatches(
  deleteBatch: (limit: number) => Promise<number>,
  batchSize: number,
  budgetMs = SWEEP_BUDGET_MS,
): Promise<number> {
  const started = performance.now();
  let removed = 0;
  for (;;) {
    const deleted = await deleteBatch(batchSize);
    removed += deleted;
    if (deleted < batchSize || performance.now() - started >= budgetMs) return removed;
  }
}
