import type { ValidationError } from 'class-validator';
import { ApiException, type FieldError } from './api-exception.js';

/** Flattens class-validator's tree into `{ field: 'tags.0', message }` entries. */
export function toFieldErrors(errors: ValidationError[], parent = ''): FieldError[] {
  return errors.flatMap((error) => {
    const field = parent ? `${parent}.${error.property}` : error.property;
    const own = Object.values(error.constraints ?? {}).map((message) => ({ field, message }));
    return [...own, ...toFieldErrors(error.children ?? [], field)];
  });
}

export function validationExceptionFactory(errors: ValidationError[]): ApiException {
  return ApiException.validation(toFieldErrors(errors));
}
