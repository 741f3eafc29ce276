import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectTransactionHost } from '@nestjs-cls/transactional';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { Clock } from '../../common/clock.js';
import { ApiException } from '../../common/errors/api-exception.js';
import { messageOf } from '../../common/errors/message-of.js';
import { appConfig, type AppConfig } from '../../config/app.config.js';
import type { TxHost } from '../../database/transactions.js';
import { DomainEvents } from '../../events/domain-events.js';
import { UserLookupService } from '../../users/user-lookup.service.js';
import { PasskeyErrors } from './passkey-errors.js';
import {
  PasskeysRepository,
  type ChallengePurpose,
  type PasskeyRow,
} from './passkeys.repository.js';

/** docs/identity.md, Passkeys: a ceremony's challenge lasts 5 minutes and serves once. */
export const PASSKEY_CHALLENGE_TTL_SECONDS = 300;
// EdDSA, ES256, RS256: what authenticators offer, in the order the service prefers them.
const SUPPORTED_ALGORITHMS = [-8, -7, -257];
const RP_NAME = 'Petstore';
/** docs/identity.md, Passkeys: enough for every device a person has, and a bound on the list. */
export const PASSKEYS_PER_ACCOUNT = 20;
const DEFAULT_NAME = 'Passkey';

/** A passkey as its owner sees it: never its key or credential id. */
export interface PasskeyView {
  id: number;
  name: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  backedUp: boolean;
  deviceType: string;
  transports: string[];
}

/**
 * What an assertion proved: the passkey it was made with (now recorded as used), or why it
 * was refused, with the passkey when the credential is known (to name its account).
 */
export type Assertion =
  | { passkey: PasskeyRow; refused?: never }
  | { refused: 'challenge' | 'unknown' | 'signature' | 'cloned'; passkey?: PasskeyRow };

const viewOf = (row: PasskeyRow): PasskeyView => ({
  id: row.id,
  name: row.name,
  createdAt: row.createdAt,
  lastUsedAt: row.lastUsedAt,
  backedUp: row.backedUp,
  deviceType: row.deviceType,
  transports: row.transports,
});

/** The challenge a client signed, read from its `clientDataJSON`; undefined when unreadable. */
function challengeOf(credential: { response?: { clientDataJSON?: unknown } }): string | undefined {
  const clientData = credential.response?.clientDataJSON;
  if (typeof clientData !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(clientData, 'base64url').toString('utf8'));
    const challenge = (parsed as { challenge?: unknown } | null)?.challenge;
    return typeof challenge === 'string' ? challenge : undefined;
  } catch {
    return undefined;
  }
}

/**
 * WebAuthn ceremonies (docs/identity.md, Passkeys): registration, and assertions for a
 * login's second step, a sign-in without a password or a proof. The relying party is
 * PUBLIC_BASE_URL's host name, the expected origin its origin. Challenges are kept in the
 * database, spent by the first response that carries them, whether or not it verifies.
 */
@Injectable()
export class PasskeysService {
  private readonly logger = new Logger('Passkeys');
  private readonly rpId: string;
  private readonly origin: string;

  constructor(
    private readonly passkeys: PasskeysRepository,
    private readonly users: UserLookupService,
    private readonly clock: Clock,
    private readonly events: DomainEvents,
    @Inject(appConfig.KEY) app: AppConfig,
    @InjectTransactionHost() private readonly txHost: TxHost,
  ) {
    // Without PUBLIC_BASE_URL, the service is its own origin, as mail links are.
    const base = new URL(app.publicBaseUrl ?? `http://localhost:${app.port}`);
    this.rpId = base.hostname;
    this.origin = base.origin;
  }

  async list(userId: number): Promise<PasskeyView[]> {
    return (await this.passkeys.listOf(userId)).map(viewOf);
  }

  hasAny(userId: number): Promise<boolean> {
    return this.passkeys.hasAny(userId);
  }

  async rename(userId: number, id: number, name: string): Promise<PasskeyView> {
    const row = await this.passkeys.rename(userId, id, name);
    if (row === undefined) throw PasskeyErrors.notFound();
    return viewOf(row);
  }

  /** 404 PASSKEY_NOT_FOUND unless the account has this passkey. */
  async assertOwn(userId: number, id: number): Promise<void> {
    if ((await this.passkeys.findOwn(userId, id)) === undefined) throw PasskeyErrors.notFound();
  }

  /** In the caller's transaction, which publishes with it. */
  async removeOwn(userId: number, id: number): Promise<void> {
    if (!(await this.passkeys.deleteOwn(userId, id))) throw PasskeyErrors.notFound();
    await this.events.publish({
      type: 'auth.passkey_removed',
      subject: `user:${userId}`,
      userId,
      passkeyId: id,
    });
  }

  /** Every passkey of the account, in the caller's transaction; whether it had any. */
  async removeAllOf(userId: number): Promise<boolean> {
    return (await this.passkeys.deleteAllOf(userId)) > 0;
  }

  /** Options for a new discoverable credential, excluding the ones the account has. */
  async registrationOptions(userId: number): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const user = await this.users.findOne(userId);
    const existing = await this.passkeys.listOf(userId);
    const options = await generateRegistrationOptions({
      rpName: RP_NAME,
      rpID: this.rpId,
      userName: user.username,
      // Stable per account, and no personal data: the account's id.
      userID: new TextEncoder().encode(String(userId)),
      attestationType: 'none',
      excludeCredentials: existing.map((row) => ({
        id: row.credentialId,
        transports: row.transports,
      })),
      authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
      supportedAlgorithmIDs: SUPPORTED_ALGORITHMS,
      timeout: PASSKEY_CHALLENGE_TTL_SECONDS * 1000,
    });
    await this.storeChallenge(options.challenge, 'registration', userId);
    return options;
  }

  /**
   * Verifies and stores a new credential, publishing `auth.passkey_added`. Its challenge is
   * spent even when it is refused: the refusal is answered once that has committed.
   */
  async register(
    userId: number,
    name: string | undefined,
    credential: RegistrationResponseJSON,
  ): Promise<PasskeyView> {
    const outcome = await this.txHost.withTransaction(
      async (): Promise<PasskeyView | ApiException> => {
        const challenge = challengeOf(credential);
        if (challenge === undefined) return PasskeyErrors.registrationFailed('no challenge');
        if (!(await this.spend(challenge, 'registration', userId))) {
          return PasskeyErrors.registrationFailed('challenge unknown, used or expired');
        }
        let verified: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
        try {
          verified = await verifyRegistrationResponse({
            response: credential,
            expectedChallenge: challenge,
            expectedOrigin: this.origin,
            expectedRPID: this.rpId,
            requireUserVerification: false,
            supportedAlgorithmIDs: SUPPORTED_ALGORITHMS,
          });
        } catch (error) {
          return PasskeyErrors.registrationFailed(messageOf(error));
        }
        if (!verified.verified) return PasskeyErrors.registrationFailed('not verified');
        if ((await this.passkeys.listOf(userId)).length >= PASSKEYS_PER_ACCOUNT) {
          return PasskeyErrors.registrationFailed(
            `this account has ${PASSKEYS_PER_ACCOUNT} passkeys, the most it may have`,
          );
        }
        const info = verified.registrationInfo;
        const row = await this.passkeys.insert({
          userId,
          credentialId: info.credential.id,
          publicKey: info.credential.publicKey,
          counter: info.credential.counter,
          transports: (info.credential.transports ?? []).slice(0, 16),
          name: name ?? DEFAULT_NAME,
          deviceType: info.credentialDeviceType,
          backedUp: info.credentialBackedUp,
        });
        if (row === undefined) return PasskeyErrors.alreadyRegistered();
        await this.events.publish({
          type: 'auth.passkey_added',
          subject: `user:${userId}`,
          userId,
          passkeyId: row.id,
        });
        return viewOf(row);
      },
    );
    if (outcome instanceof ApiException) throw outcome;
    return outcome;
  }

  /**
   * Options for an assertion: of the account's passkeys (a second step or a proof; 404
   * PASSKEY_NOT_FOUND when it has none), or of any discoverable one, with the person
   * verified (a sign-in without a password, `userId` null).
   */
  async authenticationOptions(
    purpose: Exclude<ChallengePurpose, 'registration'>,
    userId: number | null,
  ): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const allowed = userId === null ? [] : await this.passkeys.listOf(userId);
    if (userId !== null && allowed.length === 0) throw PasskeyErrors.notFound();
    const options = await generateAuthenticationOptions({
      rpID: this.rpId,
      allowCredentials: allowed.map((row) => ({
        id: row.credentialId,
        transports: row.transports,
      })),
      userVerification: userId === null ? 'required' : 'preferred',
      timeout: PASSKEY_CHALLENGE_TTL_SECONDS * 1000,
    });
    await this.storeChallenge(options.challenge, purpose, userId);
    return options;
  }

  /**
   * Checks an assertion, in the caller's transaction: its challenge (of this purpose and
   * account) is spent first, whatever follows; then the credential (of that account, when
   * one is named), the signature, origin and relying party, and the counter, which must
   * rise (unless it stays 0 on both sides). An accepted one records its use.
   */
  async verifyAssertion(
    credential: AuthenticationResponseJSON,
    purpose: Exclude<ChallengePurpose, 'registration'>,
    userId: number | null,
  ): Promise<Assertion> {
    const challenge = challengeOf(credential);
    if (challenge === undefined || !(await this.spend(challenge, purpose, userId))) {
      return { refused: 'challenge' };
    }
    const passkey =
      typeof credential.id === 'string'
        ? await this.passkeys.findByCredentialId(credential.id)
        : undefined;
    if (passkey === undefined || (userId !== null && passkey.userId !== userId)) {
      return { refused: 'unknown' };
    }
    let verified: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
    try {
      verified = await verifyAuthenticationResponse({
        response: credential,
        expectedChallenge: challenge,
        expectedOrigin: this.origin,
        expectedRPID: this.rpId,
        // The counter is checked below, once the signature proves the response genuine.
        credential: {
          id: passkey.credentialId,
          publicKey: new Uint8Array(passkey.publicKey),
          counter: 0,
        },
        requireUserVerification: userId === null,
      });
    } catch {
      return { refused: 'signature', passkey };
    }
    if (!verified.verified) return { refused: 'signature', passkey };
    const info = verified.authenticationInfo;
    const recorded = await this.passkeys.recordUse(passkey.id, info.newCounter, {
      deviceType: info.credentialDeviceType,
      backedUp: info.credentialBackedUp,
    });
    if (recorded) return { passkey };
    this.logger.warn(
      `Passkey ${passkey.id} of user ${passkey.userId} refused: its counter ${info.newCounter} ` +
        `did not rise past ${passkey.counter} (a cloned credential?)`,
    );
    return { refused: 'cloned', passkey };
  }

  private async storeChallenge(
    challenge: string,
    purpose: ChallengePurpose,
    userId: number | null,
  ): Promise<void> {
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + PASSKEY_CHALLENGE_TTL_SECONDS * 1000);
    await this.passkeys.insertChallenge(challenge, purpose, userId, now, expiresAt);
  }

  private spend(challenge: string, purpose: ChallengePurpose, userId: number | null) {
    return this.passkeys.spendChallenge(challenge, purpose, userId, this.clock.now());
  }
}
