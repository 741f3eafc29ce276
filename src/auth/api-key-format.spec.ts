import { describe, expect, it } from '@jest/globals';
import {
  API_KEY_PATTERN,
  checksumOf,
  displayPrefixOf,
  generateApiKey,
  hashApiKey,
  parseApiKey,
} from './api-key-format.js';

const RANDOM = 'abcdefghijklmnopqrstuvwxyz012345';

describe('api-key-format', () => {
  it('should generate keys of each mode that match the published pattern', () => {
    const live = generateApiKey('live');
    const test = generateApiKey('test');
    expect(live).toMatch(/^pk_live_[0-9A-Za-z]{38}$/);
    expect(test).toMatch(/^pk_test_[0-9A-Za-z]{38}$/);
    expect(API_KEY_PATTERN.test(live)).toBe(true);
    expect(generateApiKey('live')).not.toBe(live);
  });

  it('should accept a generated key and report its mode', () => {
    expect(parseApiKey(generateApiKey('live'))).toEqual({ mode: 'live' });
    expect(parseApiKey(generateApiKey('test'))).toEqual({ mode: 'test' });
  });

  it('should compute a six-character zero-padded base62 checksum', () => {
    const checksum = checksumOf(RANDOM);
    expect(checksum).toMatch(/^[0-9A-Za-z]{6}$/);
    expect(checksumOf(RANDOM)).toBe(checksum);
    // CRC32("") is 0: every digit is the zero digit.
    expect(checksumOf('')).toBe('000000');
  });

  it('should refuse a key whose checksum does not match its random part', () => {
    const key = generateApiKey('live');
    const flipped = key.slice(0, 10) + (key[10] === 'a' ? 'b' : 'a') + key.slice(11);
    expect(parseApiKey(flipped)).toBeUndefined();
  });

  it.each([
    ['an empty string', ''],
    ['an unknown prefix', `sk_live_${RANDOM}${checksumOf(RANDOM)}`],
    ['an unknown mode', `pk_prod_${RANDOM}${checksumOf(RANDOM)}`],
    ['a short random part', `pk_live_${RANDOM.slice(1)}${checksumOf(RANDOM.slice(1))}`],
    ['a non-base62 character', `pk_live_${RANDOM.slice(0, 31)}-${checksumOf(RANDOM)}`],
    ['trailing characters', `pk_live_${RANDOM}${checksumOf(RANDOM)}x`],
  ])('should refuse %s', (_case, key) => {
    expect(parseApiKey(key)).toBeUndefined();
  });

  it('should hash keys with SHA-256 and show only the first 12 characters', () => {
    const key = `pk_test_${RANDOM}${checksumOf(RANDOM)}`;
    expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(displayPrefixOf(key)).toBe('pk_test_abcd');
  });
});
