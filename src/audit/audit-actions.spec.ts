import { describe, expect, it } from '@jest/globals';
import { changesBetween, redactSecrets, REDACTED } from './audit-actions.js';

describe('changesBetween', () => {
  it('should list only the fields whose value differs, arrays compared by value', () => {
    const before = { name: 'Dogs', description: null, tags: ['a'], age: 3 };
    const after = { name: 'Cats', description: null, tags: ['a'], age: 4 };

    expect(changesBetween(before, after, ['name', 'description', 'tags', 'age'])).toEqual({
      name: { from: 'Dogs', to: 'Cats' },
      age: { from: 3, to: 4 },
    });
  });

  it('should record a creation from null and a deletion to null, leaving out fields never set', () => {
    const category = { name: 'Dogs', description: null };

    expect(changesBetween(null, category, ['name', 'description'])).toEqual({
      name: { from: null, to: 'Dogs' },
    });
    expect(changesBetween(category, null, ['name', 'description'])).toEqual({
      name: { from: 'Dogs', to: null },
    });
  });
});

describe('redactSecrets', () => {
  it('should replace every secret field value with [changed], keep null, and leave other fields', () => {
    expect(
      redactSecrets({
        passwordHash: { from: '$argon2id$old', to: '$argon2id$new' },
        secret: { from: null, to: 'whsec_abc' },
        keyHash: { from: 'abc', to: null },
        username: { from: 'ann', to: 'anna' },
      }),
    ).toEqual({
      passwordHash: { from: REDACTED, to: REDACTED },
      secret: { from: null, to: REDACTED },
      keyHash: { from: REDACTED, to: null },
      username: { from: 'ann', to: 'anna' },
    });
  });
});
