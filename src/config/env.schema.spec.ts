import { describe, expect, it } from '@jest/globals';
import { validateEnv } from './env.schema.js';

describe('validateEnv', () => {
  it('should apply the development defaults to an empty environment', () => {
    expect(validateEnv({})).toMatchObject({
      NODE_ENV: 'development',
      PORT: 3000,
      DATA_DIR: './data',
      DATABASE_MIGRATIONS_RUN: true,
      DATABASE_POOL_MAX: 10,
    });
  });

  it('should convert numbers and booleans given as text', () => {
    expect(validateEnv({ PORT: '8080', DATABASE_MIGRATIONS_RUN: 'false' })).toMatchObject({
      PORT: 8080,
      DATABASE_MIGRATIONS_RUN: false,
    });
  });

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['NODE_ENV', 'staging'],
    ['DATABASE_URL', 'mysql://localhost/db'],
    ['DATABASE_POOL_MAX', '0'],
    ['DATABASE_MIGRATIONS_RUN', 'maybe'],
    ['PUBLIC_BASE_URL', 'not a url'],
  ])('should refuse %s=%s with a message naming the variable', (name, value) => {
    expect(() => validateEnv({ [name]: value })).toThrow(
      new RegExp(`^Invalid environment[\\s\\S]*${name}:`),
    );
  });
});
