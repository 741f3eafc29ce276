import { describe, expect, it } from '@jest/globals';
import { deleteInBatches } from './delete-in-batches.js';

describe(deleteInBatches.name, () => {
  it('should delete batch after batch until one comes back short', async () => {
    const batches = [3, 3, 1];
    const removed = await deleteInBatches(() => Promise.resolve(batches.shift() ?? 0), 3);
    expect({ removed, left: batches.length }).toEqual({ removed: 7, left: 0 });
  });

  it('should stop once its budget is spent, leaving the rest to the next run', async () => {
    let calls = 0;
    // Every batch full: only the budget ends it (0 ms: after the first batch).
    const fullBatch = () => {
      calls += 1;
      return Promise.resolve(3);
    };
    const removed = await deleteInBatches(fullBatch, 3, 0);
    expect({ removed, calls }).toEqual({ removed: 3, calls: 1 });
  });
});
