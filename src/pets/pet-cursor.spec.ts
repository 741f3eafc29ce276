import { describe, expect, it } from '@jest/globals';
import { ApiException } from '../common/errors/api-exception.js';
import { decodeCursor, encodeCursor, type PetCursor } from './pet-cursor.js';

describe('pet list cursor', () => {
  const cursor: PetCursor = {
    createdAt: '2026-11-21T22:27:03.123Z',
    id: 42,
    offset: 20,
    category: 'Dogs',
    status: null,
  };

  it('should decode what it encoded when the filters match', () => {
    expect(decodeCursor(encodeCursor(cursor), { category: 'Dogs' })).toEqual(cursor);
  });

  it.each([
    ['not base64 JSON', '%%%'],
    ['a JSON object', Buffer.from('{"a":1}').toString('base64url')],
    ['a bad timestamp', Buffer.from('["x",1,0,null,null]').toString('base64url')],
    [
      'a fractional id',
      Buffer.from('["2026-01-01T00:00:00.000Z",1.5,0,null,null]').toString('base64url'),
    ],
  ])('should refuse %s', (_label, raw) => {
    expect(() => decodeCursor(raw, {})).toThrow(ApiException);
  });

  it('should refuse a cursor combined with offset', () => {
    expect(() => decodeCursor(encodeCursor(cursor), { category: 'Dogs', offset: 0 })).toThrow(
      'Validation failed (cursor: cannot be combined with offset)',
    );
  });

  it('should refuse a cursor issued for other filters', () => {
    expect(() => decodeCursor(encodeCursor(cursor), { category: 'Cats' })).toThrow(ApiException);
  });
});
