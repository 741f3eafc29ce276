import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { ApiException } from '../errors/api-exception.js';

// Room for a sort key of 100 characters of up to 4 bytes each, as base64url JSON.
const MAX_CURSOR_LENGTH = 1024;

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

/**
 * An opaque cursor: the values `toParts` lists, as base64url JSON. `decode` accepts only
 * the exact text `encode` writes (no padding, spacing or other spellings of the same
 * values), so anything forged is refused here, not by the database; `fromParts` checks
 * each value. A cursor already says where the page starts: it cannot come with an offset.
 */
export function pageCursor<T>(
  toParts: (cursor: T) => unknown[],
  fromParts: (parts: unknown[]) => T | undefined,
) {
  const encode = (cursor: T): string =>
    Buffer.from(JSON.stringify(toParts(cursor))).toString('base64url');

  const parse = (raw: string): T | undefined => {
    try {
      const parts: unknown = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
      return Array.isArray(parts) ? fromParts(parts) : undefined;
    } catch {
      return undefined;
    }
  };

  const decode = (raw: string, offset: number | undefined): T => {
    const cursor = parse(raw);
    if (cursor === undefined || encode(cursor) !== raw) throw invalidCursor('is malformed');
    if (offset !== undefined) throw invalidCursor('cannot be combined with offset');
    return cursor;
  };

  return { encode, decode };
}
