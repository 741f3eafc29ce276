import { describe, expect, it } from '@jest/globals';
import { allowedNextStatuses, isAllowedMove, PET_STATUSES, type PetStatus } from './pet-status.js';

describe('pet status machine', () => {
  const allowed: [PetStatus, PetStatus][] = [
    ['available', 'pending'],
    ['pending', 'sold'],
    ['sold', 'available'],
    ['pending', 'available'],
  ];
  const refused: [PetStatus, PetStatus][] = [
    ['available', 'sold'],
    ['sold', 'pending'],
  ];

  it.each(allowed)('should allow %s -> %s', (from, to) => {
    expect(isAllowedMove(from, to)).toBe(true);
  });

  it.each(refused)('should refuse %s -> %s', (from, to) => {
    expect(isAllowedMove(from, to)).toBe(false);
  });

  it.each(PET_STATUSES.map((s) => [s]))('should allow %s to stay put', (status) => {
    expect(isAllowedMove(status, status)).toBe(true);
  });

  it('should list the status itself first among the allowed next statuses', () => {
    expect(allowedNextStatuses('pending')).toEqual(['pending', 'sold', 'available']);
  });
});
