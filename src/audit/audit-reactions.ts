import { Injectable } from '@nestjs/common';
import type {
  ApiKeyChanged,
  LoggedIn,
  LoggedOut,
  LoginFailed,
  SessionRevoked,
} from '../auth/auth-events.js';
import type { MfaEnrolled, MfaFailed, MfaRemoved } from '../auth/mfa/mfa-events.js';
import type { PasskeyAdded, PasskeyRemoved } from '../auth/passkeys/passkey-events.js';
import type { AdoptionEvent } from '../adoptions/adoption-events.js';
import type { SsoLoggedIn } from '../auth/sso/sso-events.js';
import type { CategoryEvent } from '../categories/category-events.js';
import { OnDomainEvent } from '../events/event-handlers.decorator.js';
import type { PetEvent } from '../pets/pet-events.js';
import type {
  UserCreated,
  UserDeleted,
  UserUpdated,
  UserUpdateOrigin,
  PasswordResetRequested,
} from '../users/user-events.js';
import type { WebhookSubscriptionEvent } from '../webhooks/webhook-subscription-events.js';
import { changesBetween, REDACTED, type AuditAction, type AuditChanges } from './audit-actions.js';
import { ACTOR_USERNAME_MAX_LENGTH } from './audit-event.entity.js';
import { AuditLog, type AuditRecord } from './audit-log.js';

const PET_FIELDS = [
  'name',
  'status',
  'categoryId',
  'age',
  'breed',
  'description',
  'tags',
  'photoUrls',
] as const;

const USER_FIELDS = [
  'username',
  'email',
  'firstName',
  'lastName',
  'phone',
  'userStatus',
  'role',
  'pendingEmail',
] as const;

/** What an API key's entry says of it: never its hash, the prefix is only a label. */
const API_KEY_FIELDS = ['name', 'mode', 'prefix'] as const;

const USER_UPDATE_ACTIONS: Record<UserUpdateOrigin, AuditAction> = {
  edit: 'user.updated',
  'email-verified': 'auth.email_verified',
  'password-set': 'auth.password_reset',
};

/**
 * The audit's entries: its reactions to the domain events of every module, written in the
 * change's transaction (`@OnDomainEvent`): the change and its entry commit or roll back
 * together.
 */
@Injectable()
export class AuditReactions {
  constructor(private readonly audit: AuditLog) {}

  @OnDomainEvent('category.created', 'category.updated', 'category.deleted')
  onCategoryChanged(event: CategoryEvent): void {
    this.audit.record({
      action: event.type,
      target: { type: 'category', id: event.categoryId },
      changes: changesBetween(event.before, event.after, ['name', 'description']),
    });
  }

  @OnDomainEvent('webhook.created', 'webhook.updated', 'webhook.deleted', 'webhook.secret_rotated')
  onWebhookChanged(event: WebhookSubscriptionEvent): void {
    const changes: AuditChanges = changesBetween(event.before, event.after, [
      'url',
      'events',
      'filters',
      'description',
      'enabled',
    ]);
    // Compared whole, kept without its secrets: a change of those alone shows, from and to
    // alike, as a secret's change does (docs/api-decisions.md, "Audit log").
    if (changes.url) {
      changes.url = { from: auditedUrl(changes.url.from), to: auditedUrl(changes.url.to) };
    }
    // The secret is in no event: only that it was made or replaced is known, and recorded.
    if (event.type === 'webhook.created') changes.secret = { from: null, to: REDACTED };
    if (event.type === 'webhook.secret_rotated') changes.secret = { from: REDACTED, to: REDACTED };
    this.audit.record({
      action: event.type,
      target: { type: 'webhook', id: event.webhookId },
      changes,
    });
  }

  /** Staff's requests and moves; a customer's own and the hold's expiry are not audited. */
  @OnDomainEvent(
    'adoption.requested',
    'adoption.approved',
    'adoption.completed',
    'adoption.rejected',
    'adoption.cancelled',
    'adoption.returned',
    'adoption.extended',
  )
  onAdoptionMoved(event: AdoptionEvent): void {
    if (!event.byStaff || event.move === 'expire') return;
    const { status, holdExpiresAt, reason } = event.adoption;
    this.audit.record({
      action: `adoption.${event.move ?? 'request'}`,
      target: { type: 'adoption', id: event.adoptionId },
      changes: changesBetween(null, { status, holdExpiresAt, reason }, [
        'status',
        'holdExpiresAt',
        'reason',
      ]),
    });
  }

  @OnDomainEvent('pet.deleted')
  onPetDeleted(event: PetEvent): void {
    const pet = { ...event.pet, tags: event.pet.tags.map((tag) => tag.name) };
    this.audit.record({
      action: 'pet.deleted',
      target: { type: 'pet', id: event.petId },
      changes: changesBetween(pet, null, PET_FIELDS),
    });
  }

  /**
   * A sign-up or a first single sign-on is `auth.registered`, by the new user itself (its
   * request has no credential); an admin's creation or invitation is `user.created`, by the
   * admin.
   */
  @OnDomainEvent('user.created')
  onUserCreated(event: UserCreated): void {
    const registered = event.origin === 'registration' || event.origin === 'sso';
    this.audit.record({
      action: registered ? 'auth.registered' : 'user.created',
      target: { type: 'user', id: event.userId },
      changes: changesBetween(null, event.after, USER_FIELDS),
      ...(registered && {
        actor: { actorUserId: event.userId, actorUsername: event.after.username },
      }),
    });
  }

  /**
   * An edit through the users routes is `user.updated`; a mailed link's change is the
   * account flow's action; each by its actor (actorOfUserUpdate).
   */
  @OnDomainEvent('user.updated')
  onUserUpdated(event: UserUpdated): void {
    const changes = changesBetween(event.before, event.after, USER_FIELDS);
    // The hash is in no event: only that the password changed is known, and recorded.
    if (event.fields.includes('passwordHash')) {
      changes.password = { from: REDACTED, to: REDACTED };
    }
    this.audit.record({
      action: USER_UPDATE_ACTIONS[event.origin],
      target: { type: 'user', id: event.userId },
      changes,
      actor: actorOfUserUpdate(event.origin, event.userId),
    });
  }

  @OnDomainEvent('user.deleted')
  onUserDeleted(event: UserDeleted): void {
    this.audit.record({
      action: 'user.deleted',
      target: { type: 'user', id: event.userId },
      changes: changesBetween(event.before, null, USER_FIELDS),
    });
  }

  /** The request carries no credential: the account logging in is the actor. */
  @OnDomainEvent('auth.logged_in')
  onLoggedIn(event: LoggedIn): void {
    this.audit.record({
      action: 'auth.login',
      target: { type: 'session', id: event.sessionId },
      actor: { actorUserId: event.userId, actorUsername: event.username, actorCredential: 'none' },
    });
  }

  /** Like a login, by the account signed in; its first sign-in is also `auth.registered`. */
  @OnDomainEvent('auth.sso_logged_in')
  onSsoLoggedIn(event: SsoLoggedIn): void {
    this.audit.record({
      action: 'auth.sso_login',
      target: { type: 'session', id: event.sessionId },
      actor: { actorUserId: event.userId, actorUsername: event.username, actorCredential: 'none' },
    });
  }

  @OnDomainEvent('auth.login_failed')
  onLoginFailed(event: LoginFailed): void {
    this.audit.record({
      action: 'auth.login',
      outcome: 'failure',
      actor: {
        actorUserId: null,
        // A login takes usernames longer than the column, and a character is not a UTF-16 unit.
        actorUsername: [...event.username].slice(0, ACTOR_USERNAME_MAX_LENGTH).join(''),
        actorCredential: 'none',
      },
    });
  }

  @OnDomainEvent('auth.logged_out')
  onLoggedOut(event: LoggedOut): void {
    this.audit.record({
      action: 'auth.logout',
      target: { type: 'session', id: event.sessionId },
      actor: { actorUserId: event.userId },
    });
  }

  /** An admin's revocation of every session of a user is one entry, naming the user. */
  @OnDomainEvent('auth.session_revoked')
  onSessionRevoked(event: SessionRevoked): void {
    this.audit.record({
      action: 'session.revoked',
      target:
        event.sessionId === null
          ? { type: 'user', id: event.userId }
          : { type: 'session', id: event.sessionId },
      actor: actorOfUserUpdate(event.cause, event.userId),
    });
  }

  @OnDomainEvent('auth.api_key_created', 'auth.api_key_revoked')
  onApiKeyChanged(event: ApiKeyChanged): void {
    const created = event.type === 'auth.api_key_created';
    this.audit.record({
      action: created ? 'api_key.created' : 'api_key.revoked',
      target: { type: 'api_key', id: event.apiKey.id },
      changes: created
        ? changesBetween(null, event.apiKey, API_KEY_FIELDS)
        : changesBetween(event.apiKey, null, API_KEY_FIELDS),
      actor: actorOfUserUpdate(event.cause, event.userId),
    });
  }

  /** The request's principal acts: the owner, or (removal) an admin. */
  @OnDomainEvent('auth.mfa_enrolled', 'auth.mfa_removed')
  onMfaChanged(event: MfaEnrolled | MfaRemoved): void {
    this.audit.record({
      action: event.type === 'auth.mfa_enrolled' ? 'auth.mfa_enrolled' : 'auth.mfa_removed',
      target: { type: 'user', id: event.userId },
    });
  }

  /** The owner acts, with its bearer token. */
  @OnDomainEvent('auth.passkey_added', 'auth.passkey_removed')
  onPasskeyChanged(event: PasskeyAdded | PasskeyRemoved): void {
    this.audit.record({
      action: event.type === 'auth.passkey_added' ? 'auth.passkey_added' : 'auth.passkey_removed',
      target: { type: 'user', id: event.userId },
      changes: {
        passkeyId:
          event.type === 'auth.passkey_added'
            ? { from: null, to: event.passkeyId }
            : { from: event.passkeyId, to: null },
      },
    });
  }

  /** A login's second step (or a passkey's sign-in) carries no credential: its account is named. */
  @OnDomainEvent('auth.mfa_failed')
  onMfaFailed(event: MfaFailed): void {
    this.audit.record({
      action: 'auth.mfa_failed',
      outcome: 'failure',
      target: { type: 'user', id: event.userId },
      ...((event.step === 'verify' || event.step === 'passkey_login') && {
        actor: {
          actorUserId: event.userId,
          actorUsername: event.username,
          actorCredential: 'none',
        },
      }),
    });
  }

  /** Answered after the request: its origin comes with the event. */
  @OnDomainEvent('user.password_reset_requested')
  onPasswordResetRequested(event: PasswordResetRequested): void {
    this.audit.record({
      action: 'auth.password_reset_requested',
      target: { type: 'user', id: event.userId },
      request: event.request,
    });
  }
}

/**
 * Who made a user's update, and so what it brought about: an edit is by the request's
 * principal; a mailed link's change by the account whose link it was, since the request
 * carries no credential and the link proves the mailbox.
 */
function actorOfUserUpdate(
  origin: UserUpdateOrigin | undefined,
  userId: number,
): AuditRecord['actor'] {
  return origin === undefined || origin === 'edit' ? undefined : { actorUserId: userId };
}

/**
 * A receiver's URL as the log keeps it, for a year: without query string, fragment or user
 * info, where receivers put tokens.
 */
function auditedUrl(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const url = new URL(value);
  url.username = '';
  url.password = '';
  url.search = '';
  url.hash = '';
  return url.toString();
}
