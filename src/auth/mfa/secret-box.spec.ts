import { describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { SecretBox } from './secret-box.js';

const key = () => randomBytes(32);

describe('SecretBox', () => {
  it('should open what it sealed, with a fresh IV each time', () => {
    const box = new SecretBox(key());
    const first = box.seal('JBSWY3DPEHPK3PXP', 'totp:1');
    const second = box.seal('JBSWY3DPEHPK3PXP', 'totp:1');

    expect(first).not.toBe(second);
    expect(first).not.toContain('JBSWY3DPEHPK3PXP');
    expect(box.open(first, 'totp:1')).toBe('JBSWY3DPEHPK3PXP');
  });

  it('should refuse a value sealed for another context (a secret moved to another row)', () => {
    const box = new SecretBox(key());

    expect(() => box.open(box.seal('secret', 'totp:1'), 'totp:2')).toThrow();
  });

  it('should refuse a value altered in any byte', () => {
    const box = new SecretBox(key());
    const sealed = box.seal('secret', 'totp:1');
    const parts = sealed.split(':');
    const data = Buffer.from(parts[3], 'base64url');
    data[0] ^= 1;
    parts[3] = data.toString('base64url');

    expect(() => box.open(parts.join(':'), 'totp:1')).toThrow();
  });

  it('should refuse a value of a key it does not hold', () => {
    const sealed = new SecretBox(key()).seal('secret', 'totp:1');

    expect(() => new SecretBox(key()).open(sealed, 'totp:1')).toThrow(/unknown key/);
  });

  it('should read the previous key during a rotation, and seal with the new one', () => {
    const oldKey = key();
    const sealed = new SecretBox(oldKey).seal('secret', 'totp:1');
    const rotated = new SecretBox(key(), oldKey);

    expect(rotated.open(sealed, 'totp:1')).toBe('secret');
    expect(() => new SecretBox(oldKey).open(rotated.seal('secret', 'totp:1'), 'totp:1')).toThrow(
      /unknown key/,
    );
  });

  it('should derive a stable key from the JWT key when none is set (development)', () => {
    const jwtKey = randomBytes(48);
    const sealed = SecretBox.fromSettings(undefined, undefined, jwtKey).seal('secret', 'c');

    expect(SecretBox.fromSettings(undefined, undefined, jwtKey).open(sealed, 'c')).toBe('secret');
  });

  it('should take a configured key in base64', () => {
    const configured = key();
    const sealed = new SecretBox(configured).seal('secret', 'c');

    expect(
      SecretBox.fromSettings(configured.toString('base64'), undefined, randomBytes(48)).open(
        sealed,
        'c',
      ),
    ).toBe('secret');
  });

  it('should refuse a key that is not 32 bytes', () => {
    expect(() => new SecretBox(randomBytes(16))).toThrow(/32 bytes/);
  });
});
