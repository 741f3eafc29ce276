import { describe, expect, it } from '@jest/globals';
import { CursorSigner } from '../common/dto/page-cursor.js';
import { ApiException } from '../common/errors/api-exception.js';
import { decodeCursor, encodeCursor, filtersTag, type PetCursor } from './pet-cursor.js';
import type { PetSort } from './pet-sort.js';
import type { PetFilters } from './sql/pet-search.sql.js';

/** Signs as the service does; `forged` cursors below are signed, so their values are checked. */
const signer = new CursorSigner('a test secret for page cursors');

/** The error a client would see for this cursor, or undefined when it is accepted. */
function refusalOf(raw: string, filters: PetFilters = {}, sort: PetSort = '-createdAt') {
  try {
    decodeCursor(signer, raw, filters, sort);
    return undefined;
  } catch (error) {
    if (!(error instanceof ApiException)) throw error;
    return { status: error.getStatus(), code: error.code, details: error.details };
  }
}

const refused = (message: string) => ({
  status: 400,
  code: 'VALIDATION_ERROR',
  details: { fields: [{ field: 'cursor', message }] },
});
const malformed = refused('is malformed');

const forged = (json: string) => signer.sign('pets', Buffer.from(json).toString('base64url'));
/** A cursor's JSON with the tag of no filters and the default sort. */
const TAG = filtersTag({}, '-createdAt');
const withTag = (head: string) => forged(`[${head},"${TAG}"]`);

describe('pet list cursor', () => {
  const filters: PetFilters = { category: 'Dogs', q: 'friendly labrador', tags: ['calm'] };
  const cursor: PetCursor = {
    key: 0.0607927,
    id: 42,
    offset: 20,
    filters: filtersTag(filters, 'relevance'),
  };
  const valid = encodeCursor(signer, cursor);

  it('should decode what it encoded when the filters and sort match', () => {
    expect(decodeCursor(signer, valid, filters, 'relevance')).toEqual(cursor);
  });

  it('should take tags as a set, in any case and order', () => {
    const tagged = { tags: ['Calm', 'small', 'calm'] };
    expect(filtersTag(tagged, 'name')).toBe(filtersTag({ tags: ['SMALL', 'calm'] }, 'name'));
  });

  it.each<[PetSort, string | number | null]>([
    ['-createdAt', '0001-01-01T00:00:00.000Z'],
    ['createdAt', '9999-12-31T23:59:59.999Z'],
    ['name', 'rex'],
    ['-name', ''],
    ['age', 0],
    ['-age', null],
    ['relevance', 0],
  ])('should accept a %s cursor with the key %p', (sort, key) => {
    const edge = { key, id: 1, offset: 1, filters: filtersTag({}, sort) };
    expect(decodeCursor(signer, encodeCursor(signer, edge), {}, sort)).toEqual(edge);
  });

  it.each([
    ['not base64url at all', signer.sign('pets', '%%%')],
    [
      'base64 with padding',
      signer.sign(
        'pets',
        `${Buffer.from(`["2026-01-01T00:00:00.000Z",1,0,"${TAG}"]`).toString('base64url')}=`,
      ),
    ],
    [
      'base64 with the standard alphabet',
      // Decodes to a well-formed cursor, but is not the text the service writes.
      signer.sign('pets', Buffer.from(`["~~~~~~~~~~~~~~~~",1,0,"${TAG}"]`).toString('base64')),
    ],
    ['a JSON object', forged('{"a":1}')],
    ['JSON null', forged('null')],
    ['three elements', forged('["2026-01-01T00:00:00.000Z",1,0]')],
    ['an extra element', forged(`["2026-01-01T00:00:00.000Z",1,0,"${TAG}","x"]`)],
    ['a key as an object', withTag('{},1,0')],
    ['an id as a string', withTag('"2026-01-01T00:00:00.000Z","1",0')],
    ['a fractional id', withTag('"2026-01-01T00:00:00.000Z",1.5,0')],
    ['id 0', withTag('"2026-01-01T00:00:00.000Z",0,0')],
    ['a negative id', withTag('"2026-01-01T00:00:00.000Z",-1,0')],
    ['an id beyond 2^53', withTag('"2026-01-01T00:00:00.000Z",9007199254740993,0')],
    ['a negative offset', withTag('"2026-01-01T00:00:00.000Z",1,-1')],
    ['an offset as a string', withTag('"2026-01-01T00:00:00.000Z",1,"0"')],
    ['a short filters tag', forged('["2026-01-01T00:00:00.000Z",1,0,"abc"]')],
    ['filters as null', forged('["2026-01-01T00:00:00.000Z",1,0,null]')],
    ['spaces in the JSON', forged(`["2026-01-01T00:00:00.000Z", 1, 0, "${TAG}"]`)],
    ['an id spelled 1.0', withTag('"2026-01-01T00:00:00.000Z",1.0,0')],
    ['an escaped character', withTag('"\\u0032026-01-01T00:00:00.000Z",1,0')],
    // Well-formed, of the right filters, but not a key this sort has.
    ['the date "1"', withTag('"1",1,0')],
    ['a date without milliseconds', withTag('"2026-01-01T00:00:00Z",1,0')],
    ['a date with a zone offset', withTag('"2026-01-01T00:00:00.000+00:00",1,0')],
    ['month 13', withTag('"2026-13-01T00:00:00.000Z",1,0')],
    ['31 April', withTag('"2026-04-31T00:00:00.000Z",1,0')],
    ['year 0', withTag('"0000-01-01T00:00:00.000Z",1,0')],
    ['a date as a number', withTag('1767225600000,1,0')],
    ['no date', withTag('null,1,0')],
  ])('should refuse %s as a malformed cursor (400)', (_label, raw) => {
    expect(refusalOf(raw)).toEqual(malformed);
  });

  it.each<[PetSort, string]>([
    ['name', '1'],
    ['age', '-1'],
    ['age', '1.5'],
    ['age', '"1"'],
    ['relevance', '-0.5'],
    ['relevance', 'null'],
  ])('should refuse a %s cursor with the key %s', (sort, key) => {
    const raw = forged(`[${key},1,0,"${filtersTag({}, sort)}"]`);
    expect(refusalOf(raw, {}, sort)).toEqual(malformed);
  });

  it.each([
    // The issue's forgery: an age key beyond int4 once made the database fail (500).
    [
      'unsigned',
      Buffer.from(`[1099511627776,1,0,"${filtersTag({}, 'age')}"]`).toString('base64url'),
    ],
    ['altered in one byte', `${valid.slice(0, 5)}${valid[5] === 'A' ? 'B' : 'A'}${valid.slice(6)}`],
    ['with a byte more', `${valid}A`],
    [
      'signed with another key',
      new CursorSigner('another secret').sign('pets', valid.slice(0, -43)),
    ],
    ['signed for another list', signer.sign('audit log', valid.slice(0, -43))],
  ])('should refuse a cursor %s as not issued by the service (400)', (_label, raw) => {
    expect(refusalOf(raw, filters, 'relevance')).toEqual(refused('was not issued by this service'));
  });

  it('should refuse a cursor combined with offset', () => {
    expect(() => decodeCursor(signer, valid, { ...filters, offset: 0 }, 'relevance')).toThrow(
      'Validation failed (cursor: cannot be combined with offset)',
    );
  });

  it.each<[string, PetFilters, PetSort]>([
    ['another category', { ...filters, category: 'Cats' }, 'relevance'],
    ['another q', { ...filters, q: 'friendly labradors' }, 'relevance'],
    ['one tag more', { ...filters, tags: ['calm', 'small'] }, 'relevance'],
    ['an age bound', { ...filters, minAge: 0 }, 'relevance'],
    ['another sort', filters, 'name'],
  ])('should refuse a cursor used with %s', (_label, other, sort) => {
    expect(refusalOf(valid, other, sort)).toEqual(
      refused('was issued for other filters or another sort; repeat the same ones'),
    );
  });
});
