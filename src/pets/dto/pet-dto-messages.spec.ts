import { describe, expect, it } from '@jest/globals';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { toFieldErrors } from '../../common/errors/validation-errors.js';
import { CreatePetDto } from './create-pet.dto.js';
import { UpdatePetDto } from './update-pet.dto.js';

/** Validated as the global ValidationPipe does. */
async function fieldErrorsOf(dto: new () => object, body: Record<string, unknown>) {
  const errors = await validate(plainToInstance(dto, body), {
    whitelist: true,
    forbidNonWhitelisted: true,
    validationError: { target: false },
  });
  return toFieldErrors(errors);
}

const valid = { name: 'Rex', categoryId: 1, status: 'available' };

describe('pet DTO messages', () => {
  it.each([
    ['a categoryId sent as text', { categoryId: '1' }, 'categoryId must be an integer number'],
    ['a missing categoryId', { categoryId: undefined }, 'categoryId is required'],
    ['an age that is not a number', { age: 'abc' }, 'age must be an integer number'],
    ['an age out of range', { age: 201 }, 'age must not be greater than 200'],
    ['tags that are not a list', { tags: 'x' }, 'tags must be an array'],
    ['a tag that is not text', { tags: [1] }, 'each value in tags must be a string'],
    ['photoUrls that are not a list', { photoUrls: 'x' }, 'photoUrls must be an array'],
    ['a name that is not text', { name: 7 }, 'name must be a string'],
  ])('should report %s by the first thing wrong', async (_label, override, message) => {
    const field = Object.keys(override)[0];
    expect(await fieldErrorsOf(CreatePetDto, { ...valid, ...override })).toEqual([
      { field, message },
    ]);
  });

  it('should keep the order on the partial update DTO, and not require its fields', async () => {
    expect(await fieldErrorsOf(UpdatePetDto, { categoryId: '1', age: 'abc' })).toEqual([
      { field: 'categoryId', message: 'categoryId must be an integer number' },
      { field: 'age', message: 'age must be an integer number' },
    ]);
    expect(await fieldErrorsOf(UpdatePetDto, {})).toEqual([]);
  });

  it('should give each field one message', async () => {
    const fields = await fieldErrorsOf(CreatePetDto, { extra: 1, age: -1, tags: 'x' });
    expect(fields.map((f) => f.field).sort()).toEqual([
      'age',
      'categoryId',
      'extra',
      'name',
      'status',
      'tags',
    ]);
  });
});
