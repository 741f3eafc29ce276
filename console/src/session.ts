import { useEffect, useState } from 'preact/hooks';

export type Role = 'admin' | 'user';

export interface Session {
  token: string;
  userId: number;
  username: string;
  role: Role;
  /** When the token ends, in milliseconds since the epoch on this machine's clock. */
  expiresAt: number;
}

// Session storage: the token survives a reload of the tab but not the tab itself, and it
// never travels in a cookie (the API reads credentials from headers only).
const STORAGE_KEY = 'petstore.console.session';

export const SIGNED_OUT_EXPIRED = 'Your session has expired. Sign in again.';
export const SIGNED_OUT_REFUSED = 'The service no longer accepts your sign-in. Sign in again.';

let current: Session | undefined;
let notice: string | undefined;
let expiryTimer: ReturnType<typeof setTimeout> | undefined;
const listeners = new Set<() => void>();

/**
 * Who is signed in, from the token's claims (the API verifies the token; the console only
 * reads it). The end comes from the login's `expiresIn` measured on this machine's clock,
 * not from `exp`, so that a clock set wrong here does not end the session early or late.
 */
function sessionOf(token: string, expiresAt: number): Session {
  const payload = token.split('.')[1] ?? '';
  const json = atob(payload.replace(/-/g, '+').replace(/_/g, '/'));
  const claims = JSON.parse(json) as { sub: string | number; username: string; role: Role };
  return {
    token,
    userId: Number(claims.sub),
    username: claims.username,
    role: claims.role,
    expiresAt,
  };
}

function changed(): void {
  for (const listener of listeners) listener();
}

function begin(session: Session): void {
  if (session.expiresAt <= Date.now()) return end(SIGNED_OUT_EXPIRED);
  current = session;
  sessionStorage.setItem(
    STORAGE_KEY,
    JSON.stringify({ token: session.token, expiresAt: session.expiresAt }),
  );
  clearTimeout(expiryTimer);
  expiryTimer = setTimeout(() => end(SIGNED_OUT_EXPIRED), session.expiresAt - Date.now());
  changed();
}

function end(message?: string): void {
  current = undefined;
  notice = message;
  sessionStorage.removeItem(STORAGE_KEY);
  clearTimeout(expiryTimer);
  changed();
}

export const session = {
  get current(): Session | undefined {
    return current;
  },
  /** After a login: the token and its lifetime in seconds, as the API answered them. */
  signIn(token: string, expiresIn: number): void {
    begin(sessionOf(token, Date.now() + expiresIn * 1000));
  },
  signOut(message?: string): void {
    end(message);
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

const stored = sessionStorage.getItem(STORAGE_KEY);
if (stored) {
  try {
    const { token, expiresAt } = JSON.parse(stored) as { token: string; expiresAt: number };
    begin(sessionOf(token, expiresAt));
  } catch {
    end();
  }
}

/** The current session; re-renders the caller when it starts or ends. */
export function useSession(): Session | undefined {
  const [, setVersion] = useState(0);
  useEffect(() => session.subscribe(() => setVersion((version) => version + 1)), []);
  return session.current;
}
