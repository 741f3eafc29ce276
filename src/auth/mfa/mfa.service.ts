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
import type { MfaFailed } from './mfa-events.js';
import { MfaErrors } from './mfa-errors.js';
import { MfaRepository, type TotpFactorRow } from './mfa.repository.js';
import { SecretBox } from './secret-box.js';
import { hashRecoveryCode, matchTimeStep, newRecoveryCodes, newTotpSecret } from './totp.js';

/** The SecretBox that TOTP secrets are sealed with (MfaModule's provider). */
export const MFA_SECRET_BOX = Symbol('MFA_SECRET_BOX');

/** docs/identity.md: an `mfaToken` lasts 5 minutes and survives at most this many wrong codes. */
export const MFA_TOKEN_TTL_SECONDS = 300;
export const MFA_TOKEN_MAX_FAILURES = 5;
export const MFA_TOKEN_PATTERN = /^mfa_[A-Za-z0-9_-]{43}$/;

const ENABLED_MAX_ENTRIES = 10_000;

/** What proves the second factor: a current TOTP code or an unused recovery code. */
export interface MfaProof {
  code?: string;
  recoveryCode?: string;
}

/** A login's second step: the account it completes, or the error to answer. */
export type CompletedLogin = { user: User; error?: never } | { error: ApiException; user?: never };

/** An account as the users module lends it. */
type User = Awaited<ReturnType<UserLookupService['findOne']>>;

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
// The account the sealed secret belongs to: a secret copied to another row does not open.
const contextOf = (userId: number) => `totp:${userId}`;

/**
 * The TOTP second factor (docs/identity.md, Second factor): enrolment and its confirmation
 * with recovery codes, removal with a code, and the login's second step. Every wrong code
 * publishes `auth.mfa_failed` and counts toward the login lock-out of its account; while the
 * account is locked out, no code is accepted.
 */
@Injectable()
export class MfaService {
  // Whether an account has a confirmed factor, asked on each bearer request of an account
  // whose role requires one; kept like the access states (at most 60 s, changes through this
  // instance at once).
  private readonly enabled: TtlCache<number, boolean>;

  constructor(
    private readonly factors: MfaRepository,
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

  /** Read now: a login must not miss a factor confirmed on another instance a moment ago. */
  isEnabled(userId: number): Promise<boolean> {
    return this.factors.isEnabled(userId);
  }

  /** Cached for ACCESS_STATE_CACHE_TTL_MS, for the check of every bearer request. */
  async isEnabledCached(userId: number): Promise<boolean> {
    const cached = this.enabled.get(userId);
    if (cached !== undefined) return cached;
    const enabled = await this.factors.isEnabled(userId);
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
      if (!(await this.check(user, factor, { code }, 'confirm'))) {
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

  /** The caller's own factor goes only with a code of it (or a recovery code). */
  async removeOwn(userId: number, proof: MfaProof): Promise<void> {
    const user = await this.users.findOne(userId);
    const error = await this.txHost.withTransaction(async () => {
      const factor = await this.factors.findTotp(userId);
      if (!factor?.confirmed) return MfaErrors.notFound();
      if (!(await this.check(user, factor, proof, 'remove'))) return MfaErrors.invalidCode();
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

  /** An admin's removal of another account's factors; 404 USER_NOT_FOUND, MFA_FACTOR_NOT_FOUND. */
  async removeOf(userId: number): Promise<void> {
    await this.users.findOne(userId);
    await this.txHost.withTransaction(async () => {
      if (!(await this.factors.removeAll(userId))) throw MfaErrors.notFound();
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
    const factor = await this.factors.findTotp(user.id);
    // Removed or disabled since the password was checked: that login is over.
    if (!factor?.confirmed || !canUseCredentials(user.userStatus)) {
      await this.factors.deleteChallenge(challenge.id);
      return { error: MfaErrors.invalidToken() };
    }
    if (await this.check(user, factor, proof, 'verify')) {
      await this.factors.deleteChallenge(challenge.id);
      return { user };
    }
    const attemptsLeft = MFA_TOKEN_MAX_FAILURES - challenge.failures - 1;
    if (attemptsLeft === 0) await this.factors.deleteChallenge(challenge.id);
    else await this.factors.countChallengeFailure(challenge.id);
    return { error: MfaErrors.invalidCode(attemptsLeft) };
  }

  /**
   * Whether `proof` is good for the account now, spending it: a TOTP code's time step is
   * recorded (and the secret re-sealed with the current key), a recovery code is used up.
   * A wrong one publishes `auth.mfa_failed` and counts toward the login lock-out.
   */
  private async check(
    user: User,
    factor: TotpFactorRow,
    proof: MfaProof,
    step: MfaFailed['step'],
  ): Promise<boolean> {
    const accepted =
      !(await this.lockout.isLocked(user.username)) && (await this.spend(user.id, factor, proof));
    if (!accepted) {
      await this.lockout.recordFailure(user.username);
      await this.events.publish({
        type: 'auth.mfa_failed',
        subject: `user:${user.id}`,
        userId: user.id,
        username: user.username,
        step,
      });
    }
    return accepted;
  }

  private async spend(userId: number, factor: TotpFactorRow, proof: MfaProof): Promise<boolean> {
    if (proof.recoveryCode !== undefined) {
      return this.factors.useRecoveryCode(userId, hashRecoveryCode(proof.recoveryCode));
    }
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
