import { useEffect, useState } from 'preact/hooks';

export type Role = 'admin' | 'user' | 'customer';

export interface Session {
  token: string;
  userId: number;
  username: string;
  role: Role;
  /** When the token ends, in milliseconds since the epoch on this machine's clock. */
  expiresAt: number;
  /**
   * The account must enrol a second factor before anything else (403 MFA_ENROLMENT_REQUIRED):
   * the console shows the Security page only.
   */
  heldToEnrolment: boolean;
  /**
   * A login's enrolment token (MFA_ENROLMENT_REQUIRED): no session, no renewal, and after
   * enrolling the person signs in again, with a code.
   */
  enrolmentOnly: boolean;
}

/**
 * How long before its end the access token is renewed through the refresh cookie, so that
 * no call goes out with a token about to expire.
 */
export const RENEW_BEFORE_MS = 60_000;

export const SIGNED_OUT_EXPIRED = 'Your session has expired. Sign in again.';
export const SIGNED_OUT_REFUSED = 'The service no longer accepts your sign-in. Sign in again.';
export const SIGNED_OUT_ENROLLED =
  'Your authenticator app is set up. Sign in again, with a code from the app.';
export const SIGNED_OUT_ENROLLED_PASSKEY =
  'Your passkey is added. Sign in again, with your password and the passkey, or the passkey alone.';

// The access token lives in this module only: never in storage a script or extension could
// read later. A reload gets a new one through the HttpOnly refresh cookie (docs/console.md).
let current: Session | undefined;
let restoring = true;
let notice: string | undefined;
let renewTimer: ReturnType<typeof setTimeout> | undefined;
let renewal: (() => Promise<boolean>) | undefined;
const listeners = new Set<() => void>();

/**
 * Until when this browser holds a refresh cookie, as far as the console knows: the cookie
 * itself is HttpOnly, and asking the service on every visit before signing in would be
 * answered 400 each time. A time, not a secret: the token stays in memory and the cookie.
 */
const SIGNED_IN_UNTIL_KEY = 'petstore.console.signedInUntil';

/** The `scope` claim of a login's enrolment token (docs/identity.md, "Roles that must have one"). */
const ENROLMENT_SCOPE = 'mfa-enrolment';

function rememberSignedInUntil(until: number | undefined): void {
  try {
    if (until === undefined) localStorage.removeItem(SIGNED_IN_UNTIL_KEY);
    else localStorage.setItem(SIGNED_IN_UNTIL_KEY, String(until));
  } catch {
    // Storage refused (a private window's policy): a reload then shows the sign-in form.
  }
}

function signedInUntil(): number {
  try {
    return Number(localStorage.getItem(SIGNED_IN_UNTIL_KEY) ?? 0) || 0;
  } catch {
    return 0;
  }
}

/**
 * Who is signed in, from the token's claims (the API verifies the token; the console only
 * reads it). The end comes from the answer's `expiresIn` measured on this machine's clock,
 * not from `exp`, so that a clock set wrong here does not end the session early or late.
 */
function sessionOf(token: string, expiresAt: number): Session {
  const payload = token.split('.')[1] ?? '';
  const json = atob(payload.replace(/-/g, '+').replace(/_/g, '/'));
  const claims = JSON.parse(json) as {
    sub: string | number;
    username: string;
    role: Role;
    scope?: string;
  };
  const enrolmentOnly = claims.scope === ENROLMENT_SCOPE;
  return {
    token,
    userId: Number(claims.sub),
    username: claims.username,
    role: claims.role,
    expiresAt,
    // A renewed token of a held session stays held until the enrolment releases it.
    heldToEnrolment: enrolmentOnly || (current?.heldToEnrolment ?? false),
    enrolmentOnly,
  };
}

function changed(): void {
  for (const listener of listeners) listener();
}

/** Renews shortly before the token ends; if that fails, the session ends with the token. */
function scheduleRenewal(expiresAt: number): void {
  clearTimeout(renewTimer);
  renewTimer = setTimeout(
    () => {
      void (renewal?.() ?? Promise.resolve(false)).then((renewed) => {
        if (renewed || current?.expiresAt !== expiresAt) return;
        clearTimeout(renewTimer);
        renewTimer = setTimeout(() => end(SIGNED_OUT_EXPIRED), expiresAt - Date.now());
      });
    },
    Math.max(0, expiresAt - RENEW_BEFORE_MS - Date.now()),
  );
}

function end(message?: string): void {
  current = undefined;
  rememberSignedInUntil(undefined);
  notice = message;
  clearTimeout(renewTimer);
  changed();
}

export const session = {
  get current(): Session | undefined {
    return current;
  },
  /** True until the first silent refresh after loading the page has been answered. */
  get restoring(): boolean {
    return restoring;
  },
  /** A session of an earlier visit may come back through the refresh cookie. */
  get restorable(): boolean {
    return signedInUntil() > Date.now();
  },
  /**
   * After a login or refresh: the token and its lifetime, and the refresh cookie's, in
   * seconds, as the API answered.
   */
  signIn(token: string, expiresIn: number, refreshExpiresIn: number): void {
    current = sessionOf(token, Date.now() + expiresIn * 1000);
    rememberSignedInUntil(Date.now() + refreshExpiresIn * 1000);
    restoring = false;
    scheduleRenewal(current.expiresAt);
    changed();
  },
  /**
   * After a login answered 403 MFA_ENROLMENT_REQUIRED: its token, which only enrols, for its
   * lifetime in seconds. Nothing is kept for a reload: there is no session to come back to.
   */
  signInToEnrol(token: string, expiresIn: number): void {
    current = sessionOf(token, Date.now() + expiresIn * 1000);
    restoring = false;
    clearTimeout(renewTimer);
    renewTimer = setTimeout(() => end(SIGNED_OUT_EXPIRED), expiresIn * 1000);
    changed();
  },
  /** A call was refused with 403 MFA_ENROLMENT_REQUIRED: only enrolment is open now. */
  holdToEnrolment(): void {
    if (!current || current.heldToEnrolment) return;
    current = { ...current, heldToEnrolment: true };
    changed();
  },
  /** The factor is on: a session's token opens everything again (an enrolment token does not). */
  releaseFromEnrolment(): void {
    if (!current || current.enrolmentOnly) return;
    current = { ...current, heldToEnrolment: false };
    changed();
  },
  signOut(message?: string): void {
    end(message);
  },
  /** The first silent refresh after loading the page found no session, or none was asked. */
  restored(): void {
    restoring = false;
    rememberSignedInUntil(undefined);
    changed();
  },
  /** How to get a new token through the refresh cookie (api.ts), true when it did. */
  renewWith(renew: () => Promise<boolean>): void {
    renewal = renew;
  },
  /** Why the last session ended, once. */
  takeNotice(): string | undefined {
    const message = notice;
    notice = undefined;
    return message;
  },
  subscribe(listener: () => void): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
};

/** The current session; re-renders the caller when it starts, ends or is restored. */
export function useSession(): Session | undefined {
  const [, setVersion] = useState(0);
  useEffect(() => session.subscribe(() => setVersion((version) => version + 1)), []);
  return session.current;
}

/** Customers read pets and categories; changing them is for users and admins. */
export function canEditPets(current: Session | undefined): boolean {
  return current !== undefined && current.role !== 'customer';
}
