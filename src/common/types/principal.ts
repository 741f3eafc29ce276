import type { ApiKeyScope } from './api-key-scope.js';

/** `customer` is what a self-registered account gets (docs/identity.md, Users and roles). */
export const ROLES = ['admin', 'user', 'customer'] as const;
export type Role = (typeof ROLES)[number];

/**
 * Who a request acts as, set by ResolveCredentialsGuard (the first global guard) before any
 * handler runs. An API key acts as its owning user with that user's current role.
 */
export interface Principal {
  kind: 'user' | 'api-key';
  userId: number;
  role: Role;
  /** Set when the identity came from an API key (kind 'api-key'). */
  apiKeyId?: number;
  /** The key's display prefix, set with `apiKeyId`: a pet's history names the key by it. */
  apiKeyPrefix?: string;
  /** Set with `apiKeyId`: the key's scopes that its owner's role allows now. */
  apiKeyScopes?: readonly ApiKeyScope[];
  /** The refresh session a bearer token was issued for (its `sid` claim), when it has one. */
  sessionId?: number;
  /**
   * Set when the caller may only enrol a second factor: the token of a login that must
   * enrol one first, or any token of an account whose role requires one while it has none.
   */
  mfaEnrolmentOnly?: boolean;
}
