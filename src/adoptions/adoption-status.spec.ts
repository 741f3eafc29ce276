import { describe, expect, it } from '@jest/globals';
import { isAllowedMove, PET_STATUSES } from '../pets/pet-status.js';
import {
  ADOPTION_STATUSES,
  allowedNextStatuses,
  isOpen,
  MOVES,
  type AdoptionStatus,
} from './adoption-status.js';

describe('adoption machine', () => {
  it.each<[AdoptionStatus, AdoptionStatus[]]>([
    ['requested', ['approved', 'rejected', 'cancelled', 'requested']],
    ['approved', ['completed', 'rejected', 'cancelled', 'approved']],
    ['completed', ['returned']],
    ['rejected', []],
    ['cancelled', []],
    ['expired', []],
    ['returned', []],
  ])('should let a request move %s to %j', (from, next) => {
    expect(allowedNextStatuses(from).sort()).toEqual([...next].sort());
  });

  it('should call only requested and approved open', () => {
    expect(ADOPTION_STATUSES.filter(isOpen)).toEqual(['requested', 'approved']);
  });

  it('should move pets only along the pet machine, and every open adoption’s pet from pending', () => {
    for (const rule of Object.values(MOVES)) {
      if (!rule.pet) continue;
      expect(PET_STATUSES).toContain(rule.pet.from);
      expect(isAllowedMove(rule.pet.from, rule.pet.to)).toBe(true);
      if (rule.from.some(isOpen)) expect(rule.pet.from).toBe('pending');
    }
  });
});
