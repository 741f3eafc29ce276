import { describe, expect, it } from '@jest/globals';
import { ApiException } from '../common/errors/api-exception.js';
import { decodeCursor, encodeCursor, type PetCursor } from './pet-cursor.js';

/** The error a client would see for this cursor, or undefined when it is accepted. */
function refusalOf(raw: string, filters = {}) {
  try {
    decodeCursor(raw, filters);
    return undefined;
  } catch (error) {
    if (!(error instanceof ApiException)) throw error;
    return { status: error.getStatus(), code: error.code, details: error.details };
  }
}

const malformed = {
  status: 400,
  code: 'VALIDATION_ERROR',
  details: { fields: [{ field: 'cursor', message: 'is malformed' }] },
};

const forged = (json: string) => Buffer.from(json).toString('base64url');

describe('pet list cursor', () => {
  const cursor: PetCursor = {
    createdAt: '2026-11-21T22:27:03.123Z',
    id: 42,
    offset: 20,
    category: 'Dogs',
    status: null,
  };
  const valid = encodeCursor(cursor);

  it('should decode what it encoded when the filters match', () => {
    expect(decodeCursor(valid, { category: 'Dogs' })).toEqual(cursor);
  });

  it.each(['0001-01-01T00:00:00.000Z', '9999-12-31T23:59:59.999Z'])(
    'should accept the timestamp %s, which PostgreSQL accepts',
    (createdAt) => {
      const edge = { ...cursor, createdAt, category: null };
      expect(decodeCursor(encodeCursor(edge), {})).toEqual(edge);
    },
  );

  it.each([
    ['not base64url at all', '%%%'],
    ['base64 with padding', `${valid}=`],
    [
      'base64 with the standard alphabet',
      // Decodes to a well-formed cursor, but is not the text the service writes.
      Buffer.from('["2026-01-01T00:00:00.000Z",1,0,"~~~",null]').toString('base64'),
    ],
    ['a JSON object', forged('{"a":1}')],
    ['JSON null', forged('null')],
    ['four elements', forged('["2026-01-01T00:00:00.000Z",1,0,null]')],
    ['an extra element', forged('["2026-01-01T00:00:00.000Z",1,0,null,null,"x"]')],
    ['the date "1"', forged('["1",1,0,null,null]')],
    ['a date that is not a date', forged('["x",1,0,null,null]')],
    ['a date without milliseconds', forged('["2026-01-01T00:00:00Z",1,0,null,null]')],
    ['a date with a zone offset', forged('["2026-01-01T00:00:00.000+00:00",1,0,null,null]')],
    ['a date without a time', forged('["2026-01-01",1,0,null,null]')],
    ['month 13', forged('["2026-13-01T00:00:00.000Z",1,0,null,null]')],
    ['31 April', forged('["2026-04-31T00:00:00.000Z",1,0,null,null]')],
    ['year 0', forged('["0000-01-01T00:00:00.000Z",1,0,null,null]')],
    ['a six-digit year', forged('["+010000-01-01T00:00:00.000Z",1,0,null,null]')],
    ['a date as a number', forged('[1767225600000,1,0,null,null]')],
    ['an id as a string', forged('["2026-01-01T00:00:00.000Z","1",0,null,null]')],
    ['a fractional id', forged('["2026-01-01T00:00:00.000Z",1.5,0,null,null]')],
    ['id 0', forged('["2026-01-01T00:00:00.000Z",0,0,null,null]')],
    ['a negative id', forged('["2026-01-01T00:00:00.000Z",-1,0,null,null]')],
    ['an id beyond 2^53', forged('["2026-01-01T00:00:00.000Z",9007199254740993,0,null,null]')],
    ['a negative offset', forged('["2026-01-01T00:00:00.000Z",1,-1,null,null]')],
    ['an offset as a string', forged('["2026-01-01T00:00:00.000Z",1,"0",null,null]')],
    ['a category as a number', forged('["2026-01-01T00:00:00.000Z",1,0,7,null]')],
    ['a status as an array', forged('["2026-01-01T00:00:00.000Z",1,0,null,["sold"]]')],
    ['spaces in the JSON', forged('["2026-01-01T00:00:00.000Z", 1, 0, null, null]')],
    ['an id spelled 1.0', forged('["2026-01-01T00:00:00.000Z",1.0,0,null,null]')],
    ['an escaped character', forged('["2026-01-01T00:00:00.000Z",1,0,"\\u0044ogs",null]')],
  ])('should refuse %s as a malformed cursor (400)', (_label, raw) => {
    expect(refusalOf(raw)).toEqual(malformed);
  });

  it('should refuse a cursor combined with offset', () => {
    expect(() => decodeCursor(valid, { category: 'Dogs', offset: 0 })).toThrow(
      'Validation failed (cursor: cannot be combined with offset)',
    );
  });

  it('should refuse a cursor issued for other filters', () => {
    expect(refusalOf(valid, { category: 'Cats' })).toEqual({
      ...malformed,
      details: {
        fields: [
          {
            field: 'cursor',
            message: 'was issued for other filters; repeat the same category and status',
          },
        ],
      },
    });
  });
});
