import { describe, expect, it } from '@jest/globals';
import { CursorSigner } from '../common/dto/page-cursor.js';
import { ApiException } from '../common/errors/api-exception.js';
import { decodeHistoryCursor, encodeHistoryCursor } from './pet-history-cursor.js';

/** Signs as the service does; `forged` cursors below are signed, so their values are checked. */
const signer = new CursorSigner('a test secret for page cursors');

/** The message a client would read for this cursor, or undefined when it is accepted. */
function refusalOf(raw: string, request: { petId: number; offset?: number }) {
  try {
    decodeHistoryCursor(signer, raw, request);
    return undefined;
  } catch (error) {
    if (!(error instanceof ApiException)) throw error;
    return error.details;
  }
}

const forged = (json: string) =>
  signer.sign('pet history', Buffer.from(json).toString('base64url'));
const refused = (message: string) => ({ fields: [{ field: 'cursor', message }] });

describe('pet history cursor', () => {
  const cursor = { petId: 4, sequence: 120, offset: 20 };
  const valid = encodeHistoryCursor(signer, cursor);

  it('should decode what it encoded, for the same pet', () => {
    expect(decodeHistoryCursor(signer, valid, { petId: 4 })).toEqual(cursor);
  });

  it('should refuse a cursor of another pet, or one sent with an offset', () => {
    expect(refusalOf(valid, { petId: 5 })).toEqual(refused('was issued for another pet'));
    expect(refusalOf(valid, { petId: 4, offset: 0 })).toEqual(
      refused('cannot be combined with offset'),
    );
  });

  it.each([
    ['not base64url JSON', forged('!!!')],
    ['another shape', forged('{"petId":4}')],
    ['a sequence of 0', forged('[4,0,20]')],
    ['a negative offset', forged('[4,120,-1]')],
    ['a fractional pet id', forged('[4.5,120,20]')],
    ['another spelling of a valid cursor', forged('[4, 120, 20]')],
  ])('should refuse %s as malformed', (_label, raw) => {
    expect(refusalOf(raw, { petId: 4 })).toEqual(refused('is malformed'));
  });

  it.each([
    ['unsigned', Buffer.from('[4,120,20]').toString('base64url')],
    ['altered in one byte', `${valid.slice(0, 2)}${valid[2] === 'A' ? 'B' : 'A'}${valid.slice(3)}`],
    ['with padding', `${valid}=`],
    [
      'signed with another key',
      new CursorSigner('another secret').sign('pet history', valid.slice(0, -43)),
    ],
    ['signed for another list', signer.sign('audit log', valid.slice(0, -43))],
  ])('should refuse a cursor %s as not issued by the service', (_label, raw) => {
    expect(refusalOf(raw, { petId: 4 })).toEqual(refused('was not issued by this service'));
  });
});
