import { randomBytes } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import {
  SECRET_MIN_ENTROPY_BITS,
  estimatedEntropyBits,
  secretWeakness,
} from './secret-strength.js';

describe(secretWeakness.name, () => {
  it('should refuse a secret shorter than 32 characters, however random', () => {
    expect(secretWeakness(randomBytes(15).toString('hex'))).toMatch(/at least 32 characters/);
  });

  it('should count a repeated pattern about once, however long the secret', () => {
    expect(estimatedEntropyBits('ab'.repeat(16))).toBe(estimatedEntropyBits('ab'.repeat(500)));
    expect(secretWeakness('abc123'.repeat(20))).toMatch(/too predictable/);
  });

  it('should accept every one of many random 32-character hex secrets', () => {
    for (let i = 0; i < 2_000; i++) {
      expect(estimatedEntropyBits(randomBytes(16).toString('hex'))).toBeGreaterThan(
        SECRET_MIN_ENTROPY_BITS,
      );
    }
  });
});
