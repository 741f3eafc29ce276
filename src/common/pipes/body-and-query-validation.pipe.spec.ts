import { describe, expect, it } from '@jest/globals';
import { BodyAndQueryValidationPipe } from './body-and-query-validation.pipe.js';

describe(BodyAndQueryValidationPipe.name, () => {
  const pipe = new BodyAndQueryValidationPipe({ transform: true });

  it('should hand a path parameter on as sent, for its own pipe to read', async () => {
    for (const value of ['01', '9223372036854775807', 'abc']) {
      await expect(
        pipe.transform(value, { type: 'param', metatype: Number, data: 'petId' }),
      ).resolves.toBe(value);
    }
  });

  it('should still transform a query value', async () => {
    await expect(
      pipe.transform('7', { type: 'query', metatype: Number, data: 'limit' }),
    ).resolves.toBe(7);
  });
});
