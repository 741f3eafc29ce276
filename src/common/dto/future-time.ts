import { ValidateBy, type ValidationOptions } from 'class-validator';

const DAY_MS = 86_400_000;

/**
 * A timestamp (checked as such by `@IsISO8601` before) after now and at most `days` days
 * ahead, by this instance's clock.
 */
export const IsFutureWithin = (days: number, options?: ValidationOptions) =>
  ValidateBy(
    {
      name: 'isFutureWithin',
      constraints: [days],
      validator: {
        validate: (value: unknown) => {
          if (typeof value !== 'string') return false;
          const at = Date.parse(value);
          const now = Date.now();
          return at > now && at <= now + days * DAY_MS;
        },
        defaultMessage: () => `$property must be a future time at most ${days} days ahead`,
      },
    },
    options,
  );
