import { ApiProperty, type ApiPropertyOptions } from '@nestjs/swagger';

/**
 * Ids are int64 in the database but JSON numbers on the wire: the documented maximum is the
 * largest integer a JavaScript client reads exactly. The server accepts path ids up to
 * 2^63 - 1 (a larger well-formed id is simply not found).
 */
export const ID_SCHEMA = {
  type: 'integer',
  format: 'int64',
  minimum: 1,
  maximum: Number.MAX_SAFE_INTEGER,
} as const;

/** ISO 8601 UTC with milliseconds: `2026-11-21T22:27:03.123Z`, always 24 characters. */
export const TIMESTAMP_SCHEMA = {
  type: 'string',
  format: 'date-time',
  maxLength: 24,
  example: '2026-11-21T22:27:03.123Z',
} as const;

/** An absolute http(s) URL as the service stores and returns it. */
export const URL_SCHEMA = { type: 'string', format: 'uri', maxLength: 2048 } as const;

type Extra = Omit<ApiPropertyOptions, 'type' | 'minimum' | 'maximum'>;

export const ApiIdProperty = (description: string, extra: Extra = {}) =>
  ApiProperty({ ...ID_SCHEMA, description, ...extra } as ApiPropertyOptions);

export const ApiTimestampProperty = (description: string, extra: Extra = {}) =>
  ApiProperty({ ...TIMESTAMP_SCHEMA, description, ...extra } as ApiPropertyOptions);

/** Free text up to `maxLength` characters; `required: false` when it is left out unset. */
export const ApiTextProperty = (maxLength: number, description: string, extra: Extra = {}) =>
  ApiProperty({ type: 'string', maxLength, description, ...extra } as ApiPropertyOptions);
