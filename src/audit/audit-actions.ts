/** Every action the audit log records (contract section 8, "Audit log"). */
export const AUDIT_ACTIONS = [
  'auth.login',
  'auth.logout',
  'auth.sso_login',
  'auth.registered',
  'auth.email_verified',
  'auth.password_reset_requested',
  'auth.password_reset',
  'auth.mfa_enrolled',
  'auth.mfa_removed',
  'auth.mfa_failed',
  'auth.passkey_added',
  'auth.passkey_removed',
  'session.revoked',
  'api_key.created',
  'api_key.revoked',
  'user.created',
  'user.updated',
  'user.deleted',
  'category.created',
  'category.updated',
  'category.deleted',
  'pet.deleted',
  'webhook.created',
  'webhook.updated',
  'webhook.deleted',
  'webhook.secret_rotated',
  'adoption.request',
  'adoption.approve',
  'adoption.complete',
  'adoption.reject',
  'adoption.cancel',
  'adoption.return',
  'adoption.extend',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export const AUDIT_OUTCOMES = ['success', 'failure'] as const;
export type AuditOutcome = (typeof AUDIT_OUTCOMES)[number];

/** How the actor proved who it was: a bearer token, an API key, or nothing (a failed login). */
export const AUDIT_CREDENTIALS = ['jwt', 'api-key', 'none'] as const;
export type AuditCredential = (typeof AUDIT_CREDENTIALS)[number];

/** What an entry can be about. */
export const AUDIT_TARGET_TYPES = [
  'user',
  'session',
  'api_key',
  'category',
  'pet',
  'webhook',
  'adoption',
] as const;
export type AuditTargetType = (typeof AUDIT_TARGET_TYPES)[number];

/** A field's value before and after the change; null where it had none. */
export interface AuditChange {
  from: unknown;
  to: unknown;
}
export type AuditChanges = Record<string, AuditChange>;

/** What a secret's value is recorded as, before and after alike. */
export const REDACTED = '[changed]';

/**
 * Fields whose values are never stored, whoever records them: password hashes, tokens, key
 * hashes and webhook secrets show only that they changed.
 */
const SECRET_FIELDS = new Set([
  'password',
  'passwordHash',
  'currentPassword',
  'token',
  'tokenHash',
  'refreshToken',
  'key',
  'keyHash',
  'secret',
  'previousSecret',
]);

const redacted = (value: unknown) => (value === null || value === undefined ? null : REDACTED);

/** `changes` with every secret field's values replaced by REDACTED (a missing value stays null). */
export function redactSecrets(changes: AuditChanges): AuditChanges {
  return Object.fromEntries(
    Object.entries(changes).map(([field, change]) => [
      field,
      SECRET_FIELDS.has(field) ? { from: redacted(change.from), to: redacted(change.to) } : change,
    ]),
  );
}

/**
 * The fields among `fields` whose value differs between `before` and `after` (null for a
 * side that does not exist: a creation or a deletion), compared as JSON.
 */
export function changesBetween<T extends object>(
  before: T | null,
  after: T | null,
  fields: readonly (keyof T & string)[],
): AuditChanges {
  const changes: AuditChanges = {};
  for (const field of fields) {
    const from = before?.[field] ?? null;
    const to = after?.[field] ?? null;
    if (JSON.stringify(from) !== JSON.stringify(to)) changes[field] = { from, to };
  }
  return changes;
}
