import { useEffect, useState } from 'preact/hooks';

export type Role = 'admin' | 'user';

export interface Session {
  token: string;
  userId: number;
  username: string;
  role: Role;
  /** Milliseconds since the epoch, from the token's `exp`. */
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

/** The token's claims, read to show who is signed in and when the token ends; the API verifies it. */
function sessionOf(token: string): Session {
  const payload = token.split('.')[1] ?? '';
  const json = atob(payload.replace(/-/g, '+').replace(/_/g, '/'));
  const claims = JSON.parse(json) as {
    sub: string | number;
    username: string;
    role: Role;
    exp: number;
  };
  return {
    token,
    userId: Number(claims.sub),
    username: claims.username,
    role: claims.role,
    expiresAt: claims.exp * 1000,
  };
}

function changed(): void {
  for (const listener of listeners) listener();
}

function begin(session: Session): void {
  if (session.expiresAt <= Date.now()) return end(SIGNED_OUT_EXPIRED);
  current = session;
  sessionStorage.setItem(STORAGE_KEY, session.token);
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
  signIn(token: string): void {
    begin(sessionOf(token));
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
    begin(sessionOf(stored));
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
