import { Inject, Injectable } from '@nestjs/common';
import { InjectTransactionHost } from '@nestjs-cls/transactional';
import { ApiException } from '../../common/errors/api-exception.js';
import type { RequestOrigin } from '../../common/http/request-origin.js';
import { authConfig, type AuthConfig } from '../../config/auth.config.js';
import type { TxHost } from '../../database/transactions.js';
import { DomainEvents } from '../../events/domain-events.js';
import { OnDomainEvent, OutboxHandler } from '../../events/event-handlers.decorator.js';
import { PasswordService } from '../password.service.js';
import type { UserCreated, UserUpdated } from '../user-events.js';
import { awaitsVerification } from '../user-lifecycle.js';
import { UserStatus } from '../user-status.js';
import { UsersService } from '../users.service.js';
import { AccountMailer, type AccountMail, type MailedAccount } from '../mails/account.mailer.js';
import type { AccountAsk, AccountMailAsked } from './account-events.js';
import {
  ACCOUNT_TOKEN_PATTERN,
  generateAccountToken,
  hashAccountToken,
  RESET_PASSWORD_PURPOSES,
  TOKEN_TTL_SECONDS,
  VERIFY_EMAIL_PURPOSES,
  type AccountTokenPurpose,
} from './account-tokens.js';
import { AccountsRepository, type UsedAccountToken } from './accounts.repository.js';
import type { RegisterDto } from './dto/register.dto.js';

/*
 * The mail limit (docs/identity.md, "Mail limit"), counted per address in the database so
 * that every instance counts the same: each requester's own quota (contract section 8's 3
 * an hour), and larger overall caps, which a reset never waits for longer than 15 minutes.
 */
export const MAILS_PER_REQUESTER = 3;
export const REQUESTER_WINDOW_SECONDS = 3600;
export const MAILS_PER_ADDRESS = 10;
export const ADDRESS_WINDOW_SECONDS = 3600;
export const RESETS_PER_ADDRESS = 5;
export const RESET_WINDOW_SECONDS = 15 * 60;
const ALL = 'all';
const ALL_RESETS = 'all:reset';
/** A reset mail waiting for room under ALL_RESETS; every reset asked meanwhile joins it. */
const OWED_RESET = 'owed:reset';
const fromRequester = (requester: string) => `from:${requester}`;

/** The outbox consumer that answers the anonymous requests after their answer. */
export const ACCOUNT_ASKS = 'accounts.asks';
/** As long as the mails it leads to are tried (docs/mail.md, "The outbox consumers"). */
const ASK_RETRY_FOR_MS = 24 * 3600 * 1000;

/** Who made an anonymous request: its client address's tracker, and the request's origin. */
export interface Asker {
  requester: string;
  origin: RequestOrigin;
}

/** One answer per route, the same whether or not the address is known. */
export const AccountMessages = {
  registered:
    'Check your mailbox: the link we sent confirms your address and activates the account',
  verified: 'Your email address is verified',
  resent: 'If an account with this address awaits verification, a new link is on its way',
  forgotten: 'If an account has this address, a link to reset its password is on its way',
  reset: 'Your password is set; sign in with it',
} as const;

/** One answer for malformed, unknown, used, expired and other-purpose tokens. */
export const invalidTokenValue = () =>
  new ApiException('INVALID_TOKEN_VALUE', 'The link is not valid: it is unknown, used or expired');

/**
 * Sign-up, email verification, password reset, invitations and email changes
 * (docs/identity.md, "Mailed tokens and account flows"). Every mail is rendered and queued
 * to the mail module in the change's transaction (AccountMailer), and sent once it commits,
 * within the address's mail limit (per requester, and overall). An anonymous request
 * naming an address (sign-up, resend, forgot) does the same work whatever the address, and
 * is answered before anything looks it up: an `account.mail_asked` event, which
 * ACCOUNT_ASKS handles from the outbox.
 */
@Injectable()
export class AccountsService {
  constructor(
    private readonly accounts: AccountsRepository,
    private readonly users: UsersService,
    private readonly passwords: PasswordService,
    private readonly mailer: AccountMailer,
    private readonly events: DomainEvents,
    @InjectTransactionHost() private readonly txHost: TxHost,
    @Inject(authConfig.KEY) private readonly cfg: AuthConfig,
  ) {}

  /**
   * A taken username is 409 (usernames are public). The email is not looked at: the
   * account is created, pending, whoever holds the address (its unique index spans verified
   * accounts only); the outbox decides what to mail (ask()).
   */
  async register(dto: RegisterDto, asker: Asker): Promise<void> {
    if (this.cfg.registration === 'closed') {
      throw new ApiException(
        'REGISTRATION_CLOSED',
        'Sign-up is closed on this service; an administrator can invite you',
      );
    }
    const { password, ...fields } = dto;
    const [passwordHash, sameUsername] = await Promise.all([
      this.passwords.hashPassword(password),
      this.users.findByUsername(fields.username),
    ]);
    if (sameUsername) throw ApiException.taken('username');
    await this.txHost.withTransaction(async () => {
      const user = await this.users.register(fields, passwordHash);
      await this.publishAsk('registration', fields.email, asker, user.id);
    });
  }

  async resendVerification(email: string, asker: Asker): Promise<void> {
    await this.txHost.withTransaction(() => this.publishAsk('verification', email, asker));
  }

  async forgotPassword(email: string, asker: Asker): Promise<void> {
    await this.txHost.withTransaction(() => this.publishAsk('password-reset', email, asker));
  }

  /**
   * Each ask in a transaction of its own, which records its message as answered: one failing
   * stops the batch, which is handed over again, with the asks answered before it (or all
   * of them, after a lease ran out) skipped rather than answered twice.
   */
  @OutboxHandler(ACCOUNT_ASKS, ['account.mail_asked'], { retryForMs: ASK_RETRY_FOR_MS })
  async onMailAsked(events: AccountMailAsked[], messageIds: number[]): Promise<void> {
    for (const [index, event] of events.entries()) {
      await this.txHost.withTransaction(async () => {
        if (await this.accounts.markAskAnswered(messageIds[index])) await this.answerAsk(event);
      });
    }
  }

  /**
   * What an ask leads to, once answered. A sign-up: the verification link, or, when another
   * account holds the address, a mail to that account saying so (no link). A resend: a new
   * link for the address's newest sign-up, if none has verified it: the one its asker most
   * likely just made, not a stranger's earlier one (docs/api-decisions.md, "Accounts" 20).
   * A reset: a link, unless no account (or a disabled one, which could not sign in) has
   * the address; published as `user.password_reset_requested` when one may be sent
   * (docs/api-decisions.md, "Audit log").
   */
  private async answerAsk(event: AccountMailAsked): Promise<void> {
    const { ask, email, userId, requester } = event;
    const holder = await this.users.findByEmail(
      email,
      ask === 'verification' ? 'newest' : 'oldest',
    );
    switch (ask) {
      case 'registration': {
        if (holder && holder.id !== userId && !awaitsVerification(holder.userStatus)) {
          if (await this.mayMail(holder.email, requester)) {
            await this.mailer.queue(holder, 'registration-attempt', holder.email);
          }
          return;
        }
        const user = userId === undefined ? null : await this.pendingUser(userId);
        if (user && (await this.mayMail(user.email, requester))) {
          await this.mailToken(user, 'verify-email', 'verification', user.email);
        }
        return;
      }
      case 'verification':
        if (
          holder &&
          awaitsVerification(holder.userStatus) &&
          (await this.mayMail(email, requester))
        ) {
          await this.mailToken(holder, 'verify-email', 'verification', holder.email);
        }
        return;
      case 'password-reset':
        return this.answerReset(event, holder);
    }
  }

  /**
   * A reset mail, if the requester's quota allows, under the address's overall cap of
   * resets; when that cap is full, one mail is owed to the address and sent as soon as it
   * has room (within RESET_WINDOW_SECONDS), and every reset asked meanwhile joins it: the
   * owner who asks gets a mail sent after the ask, however many others asked. A mail
   * dies with what it was for: none is sent when the password or email changed after the
   * ask (after the last ask joined to an owed one).
   */
  private async answerReset(
    event: AccountMailAsked,
    holder: Awaited<ReturnType<UsersService['findByEmail']>>,
  ): Promise<void> {
    if (!holder || holder.userStatus === UserStatus.Disabled) {
      if (event.deferred) await this.accounts.settleMail(event.email, OWED_RESET);
      return;
    }
    const to = holder.email;
    const askedAt = event.deferred
      ? await this.accounts.lastOwedAsk(to, OWED_RESET)
      : event.askedAt && new Date(event.askedAt);
    if (askedAt && (await this.accounts.credentialsChangedSince(holder.id, askedAt))) {
      if (event.deferred) await this.accounts.settleMail(to, OWED_RESET);
      return;
    }
    if (!event.deferred) {
      await this.users.passwordResetRequested(holder.id, event.request);
      if (!(await this.takeQuota(to, fromRequester(event.requester)))) return;
      if (await this.accounts.joinOwedMail(to, OWED_RESET)) return;
    }
    if (
      await this.accounts.takeMailQuota(to, ALL_RESETS, RESETS_PER_ADDRESS, RESET_WINDOW_SECONDS)
    ) {
      if (event.deferred) await this.accounts.settleMail(to, OWED_RESET);
      await this.mailToken(holder, 'reset-password', 'password-reset', to);
    } else if (event.deferred || (await this.accounts.oweMail(to, OWED_RESET))) {
      const delayMs = await this.accounts.msUntilMailRoom(
        to,
        ALL_RESETS,
        RESETS_PER_ADDRESS,
        RESET_WINDOW_SECONDS,
      );
      await this.events.publishAfter(delayMs, {
        ...event,
        subject: `owed-reset:${to.toLowerCase()}`,
        deferred: true,
      });
    }
  }

  /** A sign-up's account, unless deleted or verified since. */
  private async pendingUser(id: number) {
    const user = await this.users.findOne(id).catch((error: unknown) => {
      if (error instanceof ApiException && error.code === 'USER_NOT_FOUND') return null;
      throw error;
    });
    return user && awaitsVerification(user.userStatus) ? user : null;
  }

  private publishAsk(ask: AccountAsk, email: string, asker: Asker, userId?: number) {
    return this.events.publish({
      type: 'account.mail_asked',
      subject: `address:${email.toLowerCase()}`,
      ask,
      email,
      ...(userId === undefined ? {} : { userId }),
      requester: asker.requester,
      request: asker.origin,
      askedAt: new Date().toISOString(),
    });
  }

  /** An invitation's mail, in the transaction that creates the account; a sign-up's: ask(). */
  @OnDomainEvent('user.created')
  async mailInvitation(event: UserCreated): Promise<void> {
    if (event.origin !== 'invitation') return;
    const user = await this.users.findOne(event.userId);
    if (await this.mayMail(user.email, `account:${user.id}`)) {
      await this.mailToken(user, 'invitation', 'invitation', user.email);
    }
  }

  /**
   * A user's own email change (its pendingEmail set, in the PUT's transaction): the link
   * goes to the new address; an address another account has verified gets no link, its
   * owner a mail saying so.
   */
  @OnDomainEvent('user.updated')
  async mailEmailChange(event: UserUpdated): Promise<void> {
    if (!event.fields.includes('pendingEmail')) return;
    const user = await this.users.findOne(event.userId);
    const { pendingEmail } = user;
    if (pendingEmail === null) return;
    const owner = await this.users.findByEmail(pendingEmail);
    const requester = `account:${user.id}`;
    if (owner && !awaitsVerification(owner.userStatus)) {
      if (await this.mayMail(owner.email, requester)) {
        await this.mailer.queue(owner, 'email-change-attempt', owner.email);
      }
    } else if (await this.mayMail(pendingEmail, requester)) {
      await this.mailToken(user, 'email-change', 'email-change', pendingEmail, pendingEmail);
    }
  }

  /**
   * A mailed token dies with what it was for: a new password or address (a reset's own
   * included) spends every reset and invitation link still out, in the change's transaction,
   * and is recorded, so that a reset asked before it and answered after mails no link.
   */
  @OnDomainEvent('user.updated')
  async spendLinksOnCredentialChange(event: UserUpdated): Promise<void> {
    if (event.fields.includes('passwordHash') || event.fields.includes('email')) {
      await this.accounts.spendTokensOfUser(event.userId, RESET_PASSWORD_PURPOSES);
      await this.accounts.recordCredentialChange(event.userId);
    }
  }

  /** A sign-up's token activates the account; an email change's applies it. */
  async verifyEmail(token: string): Promise<void> {
    await this.txHost.withTransaction(async () => {
      const used = await this.useToken(token, VERIFY_EMAIL_PURPOSES);
      if (used.purpose !== 'email-change') return this.users.verifyEmail(used.userId);
      // Superseded by a later change (or a cancellation): the link no longer applies.
      if (!(await this.users.confirmEmailChange(used.userId, used.email ?? ''))) {
        throw invalidTokenValue();
      }
    });
  }

  /**
   * A reset's or an invitation's token sets the password (UsersService.setPasswordByMail:
   * sessions, earlier tokens and API keys end; a pending account becomes active). A
   * malformed token is refused before the password is hashed.
   */
  async resetPassword(token: string, password: string): Promise<void> {
    if (!ACCOUNT_TOKEN_PATTERN.test(token)) throw invalidTokenValue();
    const passwordHash = await this.passwords.hashPassword(password);
    await this.txHost.withTransaction(async () => {
      const used = await this.useToken(token, RESET_PASSWORD_PURPOSES);
      await this.users.setPasswordByMail(used.userId, passwordHash);
    });
  }

  private async useToken(
    token: string,
    purposes: AccountTokenPurpose[],
  ): Promise<UsedAccountToken> {
    if (!ACCOUNT_TOKEN_PATTERN.test(token)) throw invalidTokenValue();
    const used = await this.accounts.useToken(hashAccountToken(token), purposes);
    if (!used) throw invalidTokenValue();
    return used;
  }

  /** A new token of `account` for `purpose`, and the mail carrying it. */
  private async mailToken(
    account: MailedAccount,
    purpose: AccountTokenPurpose,
    mail: AccountMail,
    to: string,
    email: string | null = null,
  ): Promise<void> {
    const token = generateAccountToken();
    await this.accounts.insertToken({
      tokenHash: hashAccountToken(token),
      purpose,
      userId: account.id,
      email,
      ttlSeconds: TOKEN_TTL_SECONDS[purpose],
    });
    await this.mailer.queue(account, mail, to, token);
  }

  /**
   * Counts a mail to `to` for `requester` and under the address's overall cap, or neither
   * when either is full: a mail not sent spends no one's quota.
   */
  private async mayMail(to: string, requester: string): Promise<boolean> {
    return (
      (await this.accounts.hasMailRoom(to, ALL, MAILS_PER_ADDRESS, ADDRESS_WINDOW_SECONDS)) &&
      (await this.takeQuota(to, fromRequester(requester))) &&
      this.accounts.takeMailQuota(to, ALL, MAILS_PER_ADDRESS, ADDRESS_WINDOW_SECONDS)
    );
  }

  private takeQuota(address: string, scope: string): Promise<boolean> {
    return this.accounts.takeMailQuota(
      address,
      scope,
      MAILS_PER_REQUESTER,
      REQUESTER_WINDOW_SECONDS,
    );
  }
}
