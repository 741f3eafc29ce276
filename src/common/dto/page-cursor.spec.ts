import { describe, expect, it } from '@jest/globals';
import { createHmac, createSecretKey, hkdfSync } from 'node:crypto';
import { CursorSigner } from './page-cursor.js';

const SECRET = 'a test secret for page cursors';

describe('CursorSigner', () => {
  it('should accept the cursors of another signer on the same secret, as text or key', () => {
    const cursor = new CursorSigner(SECRET).sign('pets', 'payload');
    const fromKey = new CursorSigner(createSecretKey(Buffer.from(SECRET, 'utf8')));
    expect(fromKey.payloadOf('pets', cursor)).toBe('payload');
  });

  it('should refuse the cursors of a signer on another secret', () => {
    const cursor = new CursorSigner('another secret').sign('pets', 'payload');
    expect(new CursorSigner(SECRET).payloadOf('pets', cursor)).toBeUndefined();
  });

  // bench/raw-cursor.ts signs and verifies cursors without src/: the same derivation.
  it('should sign with HMAC-SHA256 under the HKDF key of the secret', () => {
    const key = Buffer.from(hkdfSync('sha256', SECRET, '', 'petstore page cursor', 32));
    const signature = createHmac('sha256', key).update('pets\npayload').digest('base64url');
    expect(new CursorSigner(SECRET).sign('pets', 'payload')).toBe(`payload${signature}`);
  });
});
