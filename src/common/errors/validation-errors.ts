import type { ValidationError } from 'class-validator';
import { ApiException, type FieldError } from './api-exception.js';

/**
 * class-validator runs a field's constraints in the order its decorators were registered
 * (bottom-up, and across PartialType copies), so the first failure it finds is an accident
 * of layout. The one message reported per field is chosen here instead: a missing value,
 * then a wrong type, then everything else (range, length, format) in registration order.
 */
const REQUIRED_CHECKS = new Set(['isDefined', 'isNotEmpty']);
const TYPE_CHECKS = new Set([
  'isArray',
  'isBoolean',
  'isDate',
  'isEnum',
  'isIn',
  'isInt',
  'isNumber',
  'isObject',
  'isString',
]);

function rankOf(constraint: string): number {
  if (REQUIRED_CHECKS.has(constraint)) return 0;
  return TYPE_CHECKS.has(constraint) ? 1 : 2;
}

/** The first thing wrong with one field, or nothing when only its children failed. */
function firstMessage(error: ValidationError): string | undefined {
  const failed = Object.entries(error.constraints ?? {});
  if (failed.length === 0) return undefined;
  // A value that was checked although absent belongs to a field that is not optional.
  if (Object.hasOwn(error, 'value') && error.value === undefined) {
    return `${error.property} is required`;
  }
  const [, message] = failed.reduce((best, next) =>
    rankOf(next[0]) < rankOf(best[0]) ? next : best,
  );
  return message;
}

/** Flattens class-validator's tree into `{ field: 'tags.0', message }`, one entry per field. */
export function toFieldErrors(errors: ValidationError[], parent = ''): FieldError[] {
  return errors.flatMap((error) => {
    const field = parent ? `${parent}.${error.property}` : error.property;
    const message = firstMessage(error);
    const own = message === undefined ? [] : [{ field, message }];
    return [...own, ...toFieldErrors(error.children ?? [], field)];
  });
}

export function validationExceptionFactory(errors: ValidationError[]): ApiException {
  return ApiException.validation(toFieldErrors(errors));
}
