import { Inject, Injectable } from '@nestjs/common';
import { InjectTransactionHost } from '@nestjs-cls/transactional';
import { createHash, randomBytes } from 'node:crypto';
import { TtlCache } from '../../common/cache/ttl-cache.js';
import { Clock } from '../../common/clock.js';
import type { ApiException } from '../../common/errors/api-exception.js';
import { authConfig, type AuthConfig } from '../../config/auth.config.js';
import type { TxHost } from '../../database/transactions.js';
import { DomainEvents } from '../../events/domain-events.js';
import { LoginLockoutService } from '../../rate-limit/login-lockout.service.js';
import { canUseCredentials } from '../../users/user-lifecycle.js';
import { UserLookupService } from '../../users/user-lookup.service.js';
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/server';
import { PasskeyErrors } from '../passkeys/passkey-errors.js';
import { PasskeysService, type PasskeyView } from '../passkeys/passkeys.service.js';
import type { MfaFailed } from './mfa-events.js';
import { MfaErrors, type MfaMethod } from './mfa-errors.js';
import { MfaRepository } from './mfa.repository.js';
import { SecretBox } from './secret-box.js';
import { hashRecoveryCode, matchTimeStep, newRecoveryCodes, newTotpSecret } from './totp.js';

/** The SecretBox that TOTP secrets are sealed with (MfaModule's provider). */
export const MFA_SECRET_BOX = Symbol('MFA_SECRET_BOX');

/** docs/identity.md: an `mfaToken` lasts 5 minutes and survives at most this many wrong codes. */
export const MFA_TOKEN_TTL_SECONDS = 300;
export const MFA_TOKEN_MAX_FAILURES = 5;
export const MFA_TOKEN_PATTERN = /^mfa_[A-Za-z0-9_-]{43}$/;

const ENABLED_MAX_ENTRIES = 10_000;

/**
 * What proves the second factor: a current TOTP code, an unused recovery code, or an
 * assertion of one of the account's passkeys (for options asked for this step).
 */
export interface MfaProof {
  code?: string;
  recoveryCode?: string;
  passkey?: AuthenticationResponseJSON;
}

/** A login's second step: the account it completes, or the error to answer. */
export type CompletedLogin = { user: User; error?: never } | { error: ApiException; user?: never };

/** An account as the users module lends it. */
type User = Awaited<ReturnType<UserLookupService['findOne']>>;

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
// The account the sealed secret belongs to: a secret copied to another row does not open.
const contextOf = (userId: number) => `totp:${userId}`;

/**
 * The second factors (docs/identity.md, Second factor and Passkeys): TOTP enrolment and its
 * confirmation with recovery codes, passkeys (their ceremonies are PasskeysService's),
 * removal with a proof, and the login's second step. Every wrong proof publishes
 * `auth.mfa_failed` and counts toward the login lock-out of its account; while the account
 * is locked out, no proof is accepted.
 */
@Injectable()
export class MfaService {
  // Whether an account has a confirmed factor, asked on each bearer request of an account
  // whose role requires one; kept like the access states (at most 60 s, changes through this
  // instance at once).
  private readonly enabled: TtlCache<number, boolean>;

  constructor(
    private readonly factors: MfaRepository,
    private readonly passkeys: PasskeysService,
    @Inject(MFA_SECRET_BOX) private readonly box: SecretBox,
    private readonly clock: Clock,
    private readonly users: UserLookupService,
    private readonly lockout: LoginLockoutService,
    private readonly events: DomainEvents,
    @Inject(authConfig.KEY) private readonly cfg: AuthConfig,
    @InjectTransactionHost() private readonly txHost: TxHost,
  ) {
    this.enabled = new TtlCache(cfg.accessStateCacheTtlMs, ENABLED_MAX_ENTRIES);
  }

  /** Whether accounts of this role must sign in with a second factor (MFA_REQUIRED_ROLES). */
  requiredFor(role: User['role']): boolean {
    return this.cfg.mfaRequiredRoles.includes(role);
  }

  /**
   * What can complete a login of the account, none when it has no factor. Read now: a login
   * must not miss a factor added on another instance a moment ago.
   */
  async methodsOf(userId: number): Promise<MfaMethod[]> {
    const [totp, passkeys] = await Promise.all([
      this.factors.isEnabled(userId),
      this.passkeys.hasAny(userId),
    ]);
    return [
      ...(totp ? (['totp', 'recovery_code'] as const) : []),
      ...(passkeys ? (['passkey'] as const) : []),
    ];
  }

  /** Cached for ACCESS_STATE_CACHE_TTL_MS, for the check of every bearer request. */
  async isEnabledCached(userId: number): Promise<boolean> {
    const cached = this.enabled.get(userId);
    if (cached !== undefined) return cached;
    const enabled = (await this.methodsOf(userId)).length > 0;
    this.enabled.set(userId, enabled);
    return enabled;
  }

  /**
   * A new secret, pending until confirmed with a code of it; a pending one is replaced.
   * 409 MFA_ALREADY_ENABLED once confirmed.
   */
  async enrol(userId: number): Promise<{ secret: string; otpauthUrl: string }> {
    const user = await this.users.findOne(userId);
    const enrolment = newTotpSecret(user.username);
    const sealed = this.box.seal(enrolment.secret, contextOf(userId));
    if (!(await this.factors.upsertPending(userId, sealed))) throw MfaErrors.alreadyEnabled();
    return enrolment;
  }

  /** Turns the pending factor on with a code of it; its 10 recovery codes, shown once. */
  async confirm(userId: number, code: string): Promise<{ recoveryCodes: string[] }> {
    const user = await this.users.findOne(userId);
    const outcome = await this.txHost.withTransaction(async () => {
      const factor = await this.factors.findTotp(userId);
      if (factor === undefined) return { error: MfaErrors.notFound() };
      if (factor.confirmed) return { error: MfaErrors.alreadyEnabled() };
      if (!(await this.check(user, { code }, 'confirm'))) {
        return { error: MfaErrors.invalidCode() };
      }
      const recoveryCodes = newRecoveryCodes();
      await this.factors.replaceRecoveryCodes(userId, recoveryCodes.map(hashRecoveryCode));
      await this.events.publish({ type: 'auth.mfa_enrolled', subject: `user:${userId}`, userId });
      return { recoveryCodes };
    });
    if (outcome.error) throw outcome.error;
    this.forget(userId);
    return { recoveryCodes: outcome.recoveryCodes };
  }

  /**
   * The caller's own TOTP factor goes only with a proof: a code of it, a recovery code, or
   * an assertion of one of its passkeys.
   */
  async removeOwn(userId: number, proof: MfaProof): Promise<void> {
    const user = await this.users.findOne(userId);
    const error = await this.txHost.withTransaction(async () => {
      const factor = await this.factors.findTotp(userId);
      if (!factor?.confirmed) return MfaErrors.notFound();
      if (!(await this.check(user, proof, 'remove'))) return MfaErrors.invalidCode();
      await this.factors.removeAll(userId);
      await this.events.publish({
        type: 'auth.mfa_removed',
        subject: `user:${userId}`,
        userId,
        by: 'self',
      });
      return undefined;
    });
    if (error) throw error;
    this.forget(userId);
  }

  /**
   * Registers a passkey (PasskeysService.register): the account has a second factor from
   * now on, on this instance at once.
   */
  async addPasskey(
    userId: number,
    name: string | undefined,
    credential: Parameters<PasskeysService['register']>[2],
  ): Promise<PasskeyView> {
    const added = await this.passkeys.register(userId, name, credential);
    this.forget(userId);
    return added;
  }

  /**
   * The caller's own passkey goes only with a proof, as its TOTP factor does: a code, a
   * recovery code, or an assertion of one of its passkeys (that one included).
   */
  async removeOwnPasskey(userId: number, passkeyId: number, proof: MfaProof): Promise<void> {
    const user = await this.users.findOne(userId);
    const error = await this.txHost.withTransaction(async () => {
      await this.passkeys.assertOwn(userId, passkeyId);
      if (!(await this.check(user, proof, 'remove'))) return MfaErrors.invalidCode();
      await this.passkeys.removeOwn(userId, passkeyId);
      return undefined;
    });
    if (error) throw error;
    this.forget(userId);
  }

  /**
   * Options for the passkey assertion that completes a waiting login (its `mfaToken`, not
   * spent): of the account's passkeys; 404 PASSKEY_NOT_FOUND when it has none.
   */
  async passkeyOptions(mfaToken: string): Promise<PublicKeyCredentialRequestOptionsJSON> {
    if (!MFA_TOKEN_PATTERN.test(mfaToken)) throw MfaErrors.invalidToken();
    return this.txHost.withTransaction(async () => {
      const challenge = await this.factors.lockChallenge(sha256(mfaToken));
      if (challenge === undefined) throw MfaErrors.invalidToken();
      return this.passkeys.authenticationOptions('second_factor', challenge.userId);
    });
  }

  /**
   * An admin's removal of another account's factors, its TOTP factor and its passkeys; 404
   * USER_NOT_FOUND, MFA_FACTOR_NOT_FOUND.
   */
  async removeOf(userId: number): Promise<void> {
    await this.users.findOne(userId);
    await this.txHost.withTransaction(async () => {
      const [totp, passkeys] = [
        await this.factors.removeAll(userId),
        await this.passkeys.removeAllOf(userId),
      ];
      if (!totp && !passkeys) throw MfaErrors.notFound();
      await this.events.publish({
        type: 'auth.mfa_removed',
        subject: `user:${userId}`,
        userId,
        by: 'admin',
      });
    });
    this.forget(userId);
  }

  /** A login that passed its password waits for the second factor: its `mfaToken`. */
  async startLogin(userId: number): Promise<string> {
    const mfaToken = `mfa_${randomBytes(32).toString('base64url')}`;
    await this.factors.insertChallenge(userId, sha256(mfaToken), MFA_TOKEN_TTL_SECONDS);
    return mfaToken;
  }

  /**
   * The login's second step, in the caller's transaction: the account, with the token spent,
   * or the error to answer once the transaction commits (a wrong code is counted, and its
   * last one voids the token).
   */
  async completeLogin(mfaToken: string, proof: MfaProof): Promise<CompletedLogin> {
    if (!MFA_TOKEN_PATTERN.test(mfaToken)) return { error: MfaErrors.invalidToken() };
    const challenge = await this.factors.lockChallenge(sha256(mfaToken));
    if (challenge === undefined) return { error: MfaErrors.invalidToken() };
    const user = await this.users.findOne(challenge.userId);
    // Removed or disabled since the password was checked: that login is over.
    if ((await this.methodsOf(user.id)).length === 0 || !canUseCredentials(user.userStatus)) {
      await this.factors.deleteChallenge(challenge.id);
      return { error: MfaErrors.invalidToken() };
    }
    if (await this.check(user, proof, 'verify')) {
      await this.factors.deleteChallenge(challenge.id);
      return { user };
    }
    const attemptsLeft = MFA_TOKEN_MAX_FAILURES - challenge.failures - 1;
    if (attemptsLeft === 0) await this.factors.deleteChallenge(challenge.id);
    else await this.factors.countChallengeFailure(challenge.id);
    return { error: MfaErrors.invalidCode(attemptsLeft) };
  }

  /**
   * A sign-in with a passkey alone, in the caller's transaction: the account of the
   * discoverable credential whose assertion holds (the person verified by the authenticator:
   * both factors), or INVALID_PASSKEY for every reason, a locked-out or inactive account's
   * included. A refusal of a known credential counts against its account.
   */
  async completePasskeyLogin(credential: AuthenticationResponseJSON): Promise<CompletedLogin> {
    const assertion = await this.passkeys.verifyAssertion(credential, 'login', null);
    if (assertion.passkey === undefined) return { error: PasskeyErrors.invalid() };
    const user = await this.users.findOne(assertion.passkey.userId);
    const accepted =
      assertion.refused === undefined &&
      canUseCredentials(user.userStatus) &&
      !(await this.lockout.isLocked(user.username));
    if (accepted) return { user };
    await this.recordFailure(user, 'passkey_login');
    return { error: PasskeyErrors.invalid() };
  }

  /**
   * Whether `proof` is good for the account now, spending it: a TOTP code's time step is
   * recorded (and the secret re-sealed with the current key), a recovery code is used up.
   * A wrong one publishes `auth.mfa_failed` and counts toward the login lock-out.
   */
  private async check(user: User, proof: MfaProof, step: MfaFailed['step']): Promise<boolean> {
    const accepted =
      !(await this.lockout.isLocked(user.username)) && (await this.spend(user.id, proof, step));
    if (!accepted) await this.recordFailure(user, step);
    return accepted;
  }

  /**
   * A refused proof of the account: publishes `auth.mfa_failed` and counts toward the login
   * lock-out (also for a sign-in without a password, by its passkey's account).
   */
  private async recordFailure(user: User, step: MfaFailed['step']): Promise<void> {
    await this.lockout.recordFailure(user.username);
    await this.events.publish({
      type: 'auth.mfa_failed',
      subject: `user:${user.id}`,
      userId: user.id,
      username: user.username,
      step,
    });
  }

  private async spend(userId: number, proof: MfaProof, step: MfaFailed['step']): Promise<boolean> {
    if (proof.recoveryCode !== undefined) {
      return this.factors.useRecoveryCode(userId, hashRecoveryCode(proof.recoveryCode));
    }
    if (proof.passkey !== undefined) {
      const purpose = step === 'verify' ? 'second_factor' : 'proof';
      const assertion = await this.passkeys.verifyAssertion(proof.passkey, purpose, userId);
      return assertion.refused === undefined;
    }
    const factor = await this.factors.findTotp(userId);
    // A pending factor's codes prove only its own confirmation.
    if (factor === undefined || (!factor.confirmed && step !== 'confirm')) return false;
    const secret = this.box.open(factor.secret, contextOf(userId));
    const timeStep = await matchTimeStep(
      secret,
      proof.code!,
      this.clock.now(),
      factor.lastTimeStep,
    );
    if (timeStep === undefined) return false;
    return this.factors.acceptTimeStep(userId, timeStep, this.box.seal(secret, contextOf(userId)));
  }

  // Called once the change has committed.
  private forget(userId: number): void {
    this.enabled.delete(userId);
  }
}
