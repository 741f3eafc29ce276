import { describe, expect, it } from '@jest/globals';
import type { ValidationError } from 'class-validator';
import { toFieldErrors } from './validation-errors.js';

describe(toFieldErrors.name, () => {
  it('should put a missing value first, then a wrong type, then the rest, whatever the order given', () => {
    const error = (value: unknown, constraints: Record<string, string>): ValidationError => ({
      property: 'age',
      value,
      constraints,
      children: [],
    });
    const range = { max: 'age must not be greater than 200', min: 'age must not be less than 0' };
    expect(toFieldErrors([error('abc', { ...range, isInt: 'age must be an integer' })])).toEqual([
      { field: 'age', message: 'age must be an integer' },
    ]);
    expect(toFieldErrors([error(-1, range)])).toEqual([
      { field: 'age', message: 'age must not be greater than 200' },
    ]);
    expect(
      toFieldErrors([
        error('', { isInt: 'not an integer', isNotEmpty: 'age should not be empty' }),
      ]),
    ).toEqual([{ field: 'age', message: 'age should not be empty' }]);
    expect(toFieldErrors([error(undefined, { ...range, isInt: 'not an integer' })])).toEqual([
      { field: 'age', message: 'age is required' },
    ]);
  });
});
