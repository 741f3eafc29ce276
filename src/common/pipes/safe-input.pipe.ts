import { ArgumentMetadata, Injectable, PipeTransform } from '@nestjs/common';
import { ApiException, type FieldError } from '../errors/api-exception.js';

/** Keys that would reach an object's prototype when class-transformer copies them. */
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

// In a /u pattern a surrogate pair is one code point, so this matches unpaired halves only.
const LONE_SURROGATE = /\p{Cs}/u;

/** Levels of objects and arrays a request value may nest; no write field needs more than 2. */
export const MAX_INPUT_DEPTH = 32;

/**
 * What no field rule may see, at any depth: a string with U+0000 (PostgreSQL cannot store
 * it) or a lone UTF-16 surrogate (stored silently as U+FFFD), a prototype key, or nesting
 * deep enough to exhaust the stack of the recursive transformation that follows. Fields are
 * named as validation names them (`tags.0`).
 */
export function unsafeInputErrors(value: unknown, field = '', depth = 0): FieldError[] {
  if (typeof value === 'string') {
    if (value.includes('\0')) return [{ field, message: `${field} must not contain U+0000` }];
    if (LONE_SURROGATE.test(value)) {
      return [{ field, message: `${field} must not contain a lone UTF-16 surrogate` }];
    }
    return [];
  }
  if (typeof value !== 'object' || value === null) return [];
  if (depth === MAX_INPUT_DEPTH) {
    return [{ field: field || 'body', message: `nests deeper than ${MAX_INPUT_DEPTH} levels` }];
  }
  return Object.entries(value).flatMap(([key, child]) => {
    const path = field ? `${field}.${key}` : key;
    return PROTOTYPE_KEYS.has(key)
      ? [{ field: path, message: `property ${key} should not exist` }]
      : unsafeInputErrors(child, path, depth + 1);
  });
}

/**
 * Runs before ValidationPipe on bodies and query strings. Path parameters are left to their
 * own pipes: ids allow digits only, and a media key is 404 unless it is well formed.
 */
@Injectable()
export class SafeInputPipe implements PipeTransform<unknown, unknown> {
  transform(value: unknown, { type, data }: ArgumentMetadata): unknown {
    if (type !== 'body' && type !== 'query') return value;
    const errors = unsafeInputErrors(value, data);
    if (errors.length > 0) throw ApiException.validation(errors);
    return value;
  }
}
