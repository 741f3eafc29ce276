import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A key and the id its ciphertexts are marked with: the first 8 hex digits of its SHA-256. */
interface Key {
  id: string;
  bytes: Buffer;
}

const keyOf = (bytes: Buffer): Key => ({
  id: createHash('sha256').update(bytes).digest('hex').slice(0, 8),
  bytes,
});

/**
 * Encrypts what must be stored but never read from the database alone (TOTP secrets):
 * AES-256-GCM, a fresh 96-bit IV each time, the value's context (its owner) as associated
 * data, so that a ciphertext moved to another row does not decrypt. A stored value is
 * `<key id>:<iv>:<tag>:<ciphertext>` (base64url); the key id lets a rotation read values of
 * the previous key while it writes with the new one.
 */
export class SecretBox {
  private readonly current: Key;
  private readonly readable: Map<string, Key>;

  constructor(current: Buffer, previous?: Buffer) {
    if (current.length !== 32 || (previous !== undefined && previous.length !== 32)) {
      throw new Error('An AES-256-GCM key is 32 bytes');
    }
    this.current = keyOf(current);
    const keys = previous === undefined ? [this.current] : [this.current, keyOf(previous)];
    this.readable = new Map(keys.map((key) => [key.id, key]));
  }

  /**
   * The box of MFA_ENCRYPTION_KEY (and MFA_ENCRYPTION_KEY_PREVIOUS); without them
   * (development and tests only: the env schema requires the key in production), a key
   * derived from the JWT key, so that a restart keeps reading what was stored.
   */
  static fromSettings(
    key: string | undefined,
    previous: string | undefined,
    jwtKey: Buffer,
  ): SecretBox {
    const bytes =
      key === undefined
        ? Buffer.from(hkdfSync('sha256', jwtKey, '', 'petstore mfa secrets', 32))
        : Buffer.from(key, 'base64');
    return new SecretBox(
      bytes,
      previous === undefined ? undefined : Buffer.from(previous, 'base64'),
    );
  }

  seal(plaintext: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, this.current.bytes, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [this.current.id, iv, cipher.getAuthTag(), data]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
      .join(':');
  }

  /** Throws when the value was altered, sealed for another context, or with an unknown key. */
  open(sealed: string, context: string): string {
    const [keyId, iv, tag, data, ...rest] = sealed.split(':');
    const key = this.readable.get(keyId);
    if (key === undefined || data === undefined || rest.length > 0) {
      throw new Error(`A sealed value of an unknown key (${keyId}) or shape`);
    }
    const decipher = createDecipheriv(ALGORITHM, key.bytes, Buffer.from(iv, 'base64url'), {
      authTagLength: TAG_BYTES,
    });
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([
      decipher.update(Buffer.from(data, 'base64url')),
      decipher.final(),
    ]).toString('utf8');
  }
}
