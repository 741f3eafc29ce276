import { Transform } from 'class-transformer';

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
