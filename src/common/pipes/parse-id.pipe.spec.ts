import type { ArgumentMetadata } from '@nestjs/common';
import { ApiException } from '../errors/api-exception.js';
import { ParseIdPipe } from './parse-id.pipe.js';

const metadata: ArgumentMetadata = { type: 'param', data: 'petId' };
const pipe = new ParseIdPipe((id) => new ApiException('PET_NOT_FOUND', `Pet ${id} not found`));
const refusal = (value: string) => {
  try {
    pipe.transform(value, metadata);
  } catch (error) {
    return error as ApiException;
  }
  throw new Error(`${value} was accepted`);
};

describe('ParseIdPipe', () => {
  it.each([
    ['1', 1],
    ['42', 42],
    [String(Number.MAX_SAFE_INTEGER), Number.MAX_SAFE_INTEGER],
  ])('should turn %s into the number %d', (value, id) => {
    expect(pipe.transform(value, metadata)).toBe(id);
  });

  it.each(['', 'abc', '0', '-1', '1.5', '01', '1e3', ' 1', '0x10', '9223372036854775808'])(
    'should refuse %p with 400 VALIDATION_ERROR on the parameter',
    (value) => {
      const error = refusal(value);
      expect(error.code).toBe('VALIDATION_ERROR');
      expect(error.getStatus()).toBe(400);
      expect(error.details).toEqual({
        fields: [{ field: 'petId', message: 'must be a positive 64-bit integer' }],
      });
    },
  );

  it.each([String(Number.MAX_SAFE_INTEGER + 1), '9007199254740993', '9223372036854775807'])(
    'should answer the route’s not-found error for %s, beyond any issued id',
    (value) => {
      const error = refusal(value);
      expect(error.code).toBe('PET_NOT_FOUND');
      expect(error.getStatus()).toBe(404);
      expect(error.message).toBe(`Pet ${value} not found`);
    },
  );
});
