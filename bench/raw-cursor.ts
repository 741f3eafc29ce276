import { createHash, createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { HttpError } from './bare-server.js';

/**
 * The app's page cursor as both raw baselines write and read it, from scratch: HMAC-SHA256 of
 * "pets", a newline and the payload, under a key derived from JWT_SECRET, which the bench
 * gives every server.
 */
const CURSOR_KEY = Buffer.from(
  hkdfSync('sha256', process.env.JWT_SECRET ?? '', '', 'petstore page cursor', 32),
);
const signatureOf = (payload: string) =>
  createHmac('sha256', CURSOR_KEY).update(`pets\n${payload}`).digest('base64url');
export const signed = (payload: string) => payload + signatureOf(payload);

/** The payload of a cursor this server signed, as the app checks it before reading a value. */
export function verified(cursor: string): string {
  const payload = cursor.slice(0, -43);
  const given = Buffer.from(cursor.slice(-43));
  const expected = Buffer.from(signatureOf(payload));
  if (
    cursor.length <= 43 ||
    given.length !== expected.length ||
    !timingSafeEqual(given, expected)
  ) {
    throw new HttpError(400, 'VALIDATION_ERROR');
  }
  return payload;
}

/** The filters a cursor is bound to. */
export interface CursorFilters {
  category: string | null;
  status: string | null;
  q: string | null;
  tags: string[];
  minAge: number | null;
  maxAge: number | null;
}

/** The digest of the filters and sort that the app's cursor carries. */
export function filtersTag(filters: CursorFilters, sort: string): string {
  const { category, status, q, minAge, maxAge } = filters;
  const tags = [...new Set(filters.tags.map((tag) => tag.toLowerCase()))].sort();
  const canonical = [category, status, q, tags, null, minAge, maxAge, null, null, sort];
  return createHash('sha256').update(JSON.stringify(canonical)).digest('base64url').slice(0, 22);
}
