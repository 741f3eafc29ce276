import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';

/**
 * Query strings arrive as text: convert only a plain decimal integer, and leave
 * anything else ("1.5", "abc", "1e3") as it is so that `@IsInt()` refuses it.
 */
export const ToInt = () =>
  Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' && /^-?\d{1,16}$/.test(value) ? Number(value) : value,
  );

/** Trims surrounding white space from a string field before it is validated. */
export const Trim = () =>
  Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value));

/**
 * An integer sent as text (query string, environment) within [min, max]. The type check
 * is applied first, so that with stopAtFirstError "abc" is reported as not an integer
 * rather than as out of range.
 */
export const IntegerText = (min: number, max?: number) =>
  applyDecorators(ToInt(), IsInt(), Min(min), ...(max === undefined ? [] : [Max(max)]));
