import { ValidateIf } from 'class-validator';

/**
 * An optional field that always has a value: it may be left out, but `null` is validated
 * like any other value, and so refused. (`@IsOptional()` lets null through: use it only for
 * fields that null clears.)
 */
export const IsOptionalNotNull = () =>
  ValidateIf((_object: object, value: unknown) => value !== undefined);
