import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { createHmac, hkdfSync, timingSafeEqual, type KeyObject } from 'node:crypto';
import { ApiException } from '../errors/api-exception.js';

// Room for a sort key of 100 characters of up to 4 bytes each, as base64url JSON, and the
// signature after it.
export const MAX_CURSOR_LENGTH = 1024;

/** The `cursor` query parameter of a keyset-paged list: an earlier page's `nextCursor`. */
export const CursorQuery = (description: string) =>
  applyDecorators(
    ApiPropertyOptional({
      type: 'string',
      maxLength: MAX_CURSOR_LENGTH,
      pattern: '^[A-Za-z0-9_-]+$',
      description,
    }),
    IsOptional(),
    IsString(),
    MaxLength(MAX_CURSOR_LENGTH),
  );

export const invalidCursor = (message: string) =>
  ApiException.validation([{ field: 'cursor', message }]);

export const isCount = (value: unknown, min: number): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= min;

// HMAC-SHA256 as base64url: 43 characters.
const SIGNATURE_LENGTH = 43;

/**
 * Signs the cursors this service issues and recognises them (contract section 9): a cursor
 * it did not write, or altered in any byte, is refused before any of its values is read.
 * Its key is derived from the deployment's JWT secret (HKDF, a key of its own: a cursor's
 * signature can never stand for a token's), so every instance, and the next start of this
 * one, accepts the cursors of the others. One instance per process (auth's JwtKeyModule).
 */
export class CursorSigner {
  private readonly key: Buffer;

  constructor(jwtSecret: KeyObject | string) {
    this.key = Buffer.from(hkdfSync('sha256', jwtSecret, '', 'petstore page cursor', 32));
  }

  /** `payload` followed by its signature for `list` (a cursor of one list is no other's). */
  sign(list: string, payload: string): string {
    return payload + this.signature(list, payload);
  }

  /** The payload of a cursor this service signed for `list`; undefined for any other text. */
  payloadOf(list: string, cursor: string): string | undefined {
    if (cursor.length <= SIGNATURE_LENGTH) return undefined;
    const payload = cursor.slice(0, -SIGNATURE_LENGTH);
    const given = Buffer.from(cursor.slice(-SIGNATURE_LENGTH));
    const expected = Buffer.from(this.signature(list, payload));
    // Compared as text, byte for byte: another spelling of the same bits is refused too.
    return given.length === expected.length && timingSafeEqual(given, expected)
      ? payload
      : undefined;
  }

  private signature(list: string, payload: string): string {
    return createHmac('sha256', this.key).update(`${list}\n${payload}`).digest('base64url');
  }
}

/**
 * A signed cursor of the list named `list`: the values `toParts` lists, as base64url JSON,
 * then the signature (`CursorSigner`). `decode` accepts only the exact text `encode` writes:
 * a cursor not signed by this service is refused, and so is any other spelling of the same
 * values; `fromParts` checks each value. A cursor already says where the page starts: it
 * cannot come with an offset.
 */
export function pageCursor<T>(
  list: string,
  toParts: (cursor: T) => unknown[],
  fromParts: (parts: unknown[]) => T | undefined,
) {
  const payloadOf = (cursor: T): string =>
    Buffer.from(JSON.stringify(toParts(cursor))).toString('base64url');

  const encode = (signer: CursorSigner, cursor: T): string => signer.sign(list, payloadOf(cursor));

  const parse = (payload: string): T | undefined => {
    try {
      const parts: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      return Array.isArray(parts) ? fromParts(parts) : undefined;
    } catch {
      return undefined;
    }
  };

  const decode = (signer: CursorSigner, raw: string, offset: number | undefined): T => {
    const payload = signer.payloadOf(list, raw);
    if (payload === undefined) throw invalidCursor('was not issued by this service');
    const cursor = parse(payload);
    if (cursor === undefined || payloadOf(cursor) !== payload) throw invalidCursor('is malformed');
    if (offset !== undefined) throw invalidCursor('cannot be combined with offset');
    return cursor;
  };

  return { encode, decode };
}
