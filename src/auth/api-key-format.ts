import { createHash, randomInt } from 'node:crypto';
import { crc32 } from 'node:zlib';
import type { ApiKeyMode } from '../common/types/api-key-mode.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
/** How much of a key is kept in clear for display: `pk_live_` plus 4 characters. */
export const API_KEY_PREFIX_LENGTH = 12;
/** Those 12 characters, as the API shows them (OpenAPI `pattern`). */
export const API_KEY_PREFIX_PATTERN = '^pk_(live|test)_[0-9A-Za-z]{4}$';

/** The published pattern (docs/identity.md), for secret scanners. */
export const API_KEY_PATTERN = /^pk_(live|test)_([0-9A-Za-z]{32})([0-9A-Za-z]{6})$/;

/** Zero-padded base62 of the unsigned CRC32 (2^32 < 62^6, so six digits always suffice). */
export function checksumOf(random: string): string {
  let value = crc32(random) >>> 0;
  let digits = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    digits = BASE62[value % 62] + digits;
    value = Math.floor(value / 62);
  }
  return digits;
}

export function generateApiKey(mode: ApiKeyMode): string {
  let random = '';
  for (let i = 0; i < RANDOM_LENGTH; i++) random += BASE62[randomInt(62)];
  return `pk_${mode}_${random}${checksumOf(random)}`;
}

export interface ParsedApiKey {
  mode: ApiKeyMode;
}

/**
 * The key's mode when it has the right shape and checksum, else undefined. This runs
 * before any database look-up, so that a mistyped or forged key costs nothing.
 */
export function parseApiKey(key: string): ParsedApiKey | undefined {
  const match = API_KEY_PATTERN.exec(key);
  if (!match) return undefined;
  const [, mode, random, checksum] = match;
  if (checksumOf(random) !== checksum) return undefined;
  return { mode: mode as ApiKeyMode };
}

/** What is stored and looked up: keys are random enough that a fast hash suffices. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function displayPrefixOf(key: string): string {
  return key.slice(0, API_KEY_PREFIX_LENGTH);
}
