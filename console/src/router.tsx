import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';

/** Where the service serves the console; every route below is relative to it. */
const BASE = '/console';

const listeners = new Set<() => void>();
addEventListener('popstate', () => listeners.forEach((listener) => listener()));

export function navigate(to: string, { replace = false } = {}): void {
  const url = `${BASE}${to}`;
  if (replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  listeners.forEach((listener) => listener());
}

interface Location {
  /** The path below BASE, `/` at the root. */
  path: string;
  query: URLSearchParams;
}

function currentLocation(): Location {
  const path = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : '';
  return { path: path.replace(/\/$/, '') || '/', query: new URLSearchParams(location.search) };
}

/** The `offset` query parameter of a paged list: a whole number, else 0. */
export function offsetOf(query: URLSearchParams): number {
  return Math.max(0, Number.parseInt(query.get('offset') ?? '0', 10) || 0);
}

export function useLocation(): Location {
  const [current, setCurrent] = useState(currentLocation);
  useEffect(() => {
    const update = () => setCurrent(currentLocation());
    listeners.add(update);
    return () => listeners.delete(update);
  }, []);
  return current;
}

interface LinkProps {
  /** A route below BASE. */
  href: string;
  class?: string;
  'aria-current'?: 'page';
  children: ComponentChildren;
}

/** A real link (it opens in a new tab as usual), followed in place on a plain click. */
export function Link({ href, ...props }: LinkProps) {
  const onClick = (event: MouseEvent) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) {
      return;
    }
    event.preventDefault();
    navigate(href);
  };
  return <a {...props} href={`${BASE}${href}`} onClick={onClick} />;
}
