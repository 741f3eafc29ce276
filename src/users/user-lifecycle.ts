import { UserStatus } from './user-status.js';

/*
 * An account's lifecycle (docs/identity.md, "Users and roles"), as pets/pet-status.ts is a
 * pet's:
 *
 *   sign-up, invitation ──► pending ──(a mailed link used: address verified, password set)──► active
 *   an admin's creation ──► active, or the status the admin gives
 *   an admin's edit moves any status to any other (active ◄──► disabled)
 */

/**
 * Where a used mailed link takes an account: the link proved the mailbox, so a pending
 * account becomes active; any other status stays as it is.
 */
export const MAILED_LINK_MOVE = { from: UserStatus.Pending, to: UserStatus.Active } as const;

export function statusAfterMailedLink(from: UserStatus): UserStatus {
  return from === MAILED_LINK_MOVE.from ? MAILED_LINK_MOVE.to : from;
}

/**
 * A pending account has not shown it holds its address: it cannot sign in, and the
 * address's unique index leaves it out, so another account may verify the address first.
 */
export const awaitsVerification = (status: UserStatus): boolean => status === UserStatus.Pending;

/** Only an active account signs in and uses its credentials (bearer tokens, API keys). */
export const canUseCredentials = (status: UserStatus): boolean => status === UserStatus.Active;

/**
 * Leaving active cuts off every bearer token issued until then (`tokensValidAfter`), so
 * that re-enabling the account revives none.
 */
export const cutsOffTokens = (to: UserStatus): boolean => !canUseCredentials(to);
