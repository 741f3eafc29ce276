/**
 * Runs `deleteBatch(batchSize)` until a batch deletes fewer than `batchSize` rows, so that a
 * sweep of a large backlog holds no lock for long; how many rows it deleted in all.
 */
export async function deleteInBatches(
  deleteBatch: (limit: number) => Promise<number>,
  batchSize: number,
): Promise<number> {
  let removed = 0;
  for (;;) {
    const deleted = await deleteBatch(batchSize);
    removed += deleted;
    if (deleted < batchSize) return removed;
  }
}
