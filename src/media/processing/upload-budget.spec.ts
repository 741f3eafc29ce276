import { describe, expect, it } from '@jest/globals';
import type { MediaConfig } from '../../config/media.config.js';
import { UploadBudget } from './upload-budget.js';

describe(UploadBudget.name, () => {
  const budgetOf = (maxBufferedBytes: number) =>
    new UploadBudget({ maxBufferedBytes } as MediaConfig);

  it('should grant reservations while they fit, and refuse the one that does not', () => {
    const sut = budgetOf(10);
    expect(sut.tryReserve(6)).toBeDefined();
    expect(sut.tryReserve(4)).toBeDefined();
    expect(sut.tryReserve(1)).toBeUndefined();
  });

  it('should give bytes back once per reservation, however often released', () => {
    const sut = budgetOf(10);
    const release = sut.tryReserve(10)!;
    const other = sut.tryReserve(0)!;
    release();
    release();
    other();
    expect(sut.tryReserve(10)).toBeDefined();
    expect(sut.tryReserve(1)).toBeUndefined();
  });
});
