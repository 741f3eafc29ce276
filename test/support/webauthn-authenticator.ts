import { encodeCBOR } from '@levischuck/tiny-cbor';
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

/*
 * A software WebAuthn authenticator for e2e tests: ES256 keys from node:crypto, attestation
 * `none`, authenticator data with its flags and signature counter, and the JSON a browser's
 * `PublicKeyCredential.toJSON()` gives. Tests tamper with what they send through the options
 * of create() and get().
 */

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_BE = 0x08;
const FLAG_BS = 0x10;
const FLAG_AT = 0x40;

const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();
const b64url = (data: Uint8Array) => Buffer.from(data).toString('base64url');

export interface StoredCredential {
  id: string;
  privateKey: KeyObject;
  cosePublicKey: Uint8Array;
  counter: number;
  userHandle: string;
}

export interface CeremonyOptions {
  /** The page's origin the client reports; the authenticator's origin by default. */
  origin?: string;
  /** The relying party whose hash goes in the authenticator data; the options' by default. */
  rpId?: string;
  /** A challenge other than the options' one. */
  challenge?: string;
  /** Whether the person was verified (UV flag); true by default. */
  verified?: boolean;
}

export interface RegistrationOptionsJson {
  challenge: string;
  rp: { id?: string };
  user: { id: string };
}

export interface AuthenticationOptionsJson {
  challenge: string;
  rpId?: string;
  allowCredentials?: { id: string }[];
}

function cosePublicKeyOf(publicKey: KeyObject): Uint8Array {
  const jwk = publicKey.export({ format: 'jwk' });
  return encodeCBOR(
    new Map<number, number | Uint8Array>([
      [1, 2], // kty: EC2
      [3, -7], // alg: ES256
      [-1, 1], // crv: P-256
      [-2, Buffer.from(jwk.x!, 'base64url')],
      [-3, Buffer.from(jwk.y!, 'base64url')],
    ]),
  );
}

export class SoftwareAuthenticator {
  readonly credentials = new Map<string, StoredCredential>();

  /** `backedUp`: the credential is synced (BE and BS flags), as a platform passkey may be. */
  constructor(
    readonly origin: string,
    private readonly backedUp = false,
  ) {}

  /** A new credential for the registration options: their `RegistrationResponseJSON`. */
  create(options: RegistrationOptionsJson, ceremony: CeremonyOptions = {}) {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const id = b64url(randomBytes(16));
    const credential: StoredCredential = {
      id,
      privateKey,
      cosePublicKey: cosePublicKeyOf(publicKey),
      counter: 0,
      userHandle: options.user.id,
    };
    this.credentials.set(id, credential);
    return this.registrationOf(credential, options, ceremony);
  }

  /** The registration response of an existing credential again (registering it twice). */
  registrationOf(
    credential: StoredCredential,
    options: RegistrationOptionsJson,
    ceremony: CeremonyOptions = {},
  ) {
    const rpId = ceremony.rpId ?? options.rp.id ?? new URL(this.origin).hostname;
    const idBytes = Buffer.from(credential.id, 'base64url');
    const attested = Buffer.concat([
      Buffer.alloc(16), // aaguid: none
      Buffer.from([idBytes.length >> 8, idBytes.length & 0xff]),
      idBytes,
      credential.cosePublicKey,
    ]);
    const authData = this.authenticatorData(rpId, credential.counter, ceremony, FLAG_AT, attested);
    const clientDataJSON = this.clientData('webauthn.create', options.challenge, ceremony);
    const attestationObject = encodeCBOR(
      new Map<string, unknown>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authData],
      ]) as never,
    );
    return {
      id: credential.id,
      rawId: credential.id,
      type: 'public-key',
      response: {
        clientDataJSON: b64url(clientDataJSON),
        attestationObject: b64url(attestationObject),
        transports: ['internal'],
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  /**
   * An assertion for the authentication options: its `AuthenticationResponseJSON`, with the
   * credential's counter raised by one (or set to `counter`).
   */
  get(
    options: AuthenticationOptionsJson,
    ceremony: CeremonyOptions & { credentialId?: string; counter?: number } = {},
  ) {
    const credential = this.pick(options, ceremony.credentialId);
    credential.counter = ceremony.counter ?? credential.counter + 1;
    const rpId = ceremony.rpId ?? options.rpId ?? new URL(this.origin).hostname;
    const authData = this.authenticatorData(rpId, credential.counter, ceremony, 0);
    const clientDataJSON = this.clientData('webauthn.get', options.challenge, ceremony);
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), {
      key: credential.privateKey,
      dsaEncoding: 'der',
    });
    return {
      id: credential.id,
      rawId: credential.id,
      type: 'public-key',
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        userHandle: credential.userHandle,
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  /** Another authenticator holding a copy of one credential, key and counter as they are now. */
  clone(credentialId: string): SoftwareAuthenticator {
    const copy = new SoftwareAuthenticator(this.origin, this.backedUp);
    const credential = this.credentials.get(credentialId)!;
    copy.credentials.set(credentialId, { ...credential });
    return copy;
  }

  private pick(options: AuthenticationOptionsJson, credentialId?: string): StoredCredential {
    const allowed = options.allowCredentials?.map((entry) => entry.id) ?? [];
    const id =
      credentialId ??
      [...this.credentials.keys()].find((key) => allowed.length === 0 || allowed.includes(key));
    const credential = id === undefined ? undefined : this.credentials.get(id);
    if (credential === undefined) throw new Error('no credential of this authenticator fits');
    return credential;
  }

  private authenticatorData(
    rpId: string,
    counter: number,
    ceremony: CeremonyOptions,
    extraFlags: number,
    attested: Buffer = Buffer.alloc(0),
  ): Buffer {
    const flags =
      FLAG_UP |
      (ceremony.verified === false ? 0 : FLAG_UV) |
      (this.backedUp ? FLAG_BE | FLAG_BS : 0) |
      extraFlags;
    const count = Buffer.alloc(4);
    count.writeUInt32BE(counter);
    return Buffer.concat([sha256(rpId), Buffer.from([flags]), count, attested]);
  }

  private clientData(type: string, challenge: string, ceremony: CeremonyOptions): Buffer {
    return Buffer.from(
      JSON.stringify({
        type,
        challenge: ceremony.challenge ?? challenge,
        origin: ceremony.origin ?? this.origin,
        crossOrigin: false,
      }),
    );
  }
}
