import { isIPv6 } from 'node:net';
import type { Request } from 'express';

export type Tier = 'api-key' | 'user' | 'anonymous';
export const WINDOWS = { hour: 3_600_000, minute: 60_000 } as const;
export type WindowName = keyof typeof WINDOWS;

/**
 * Whose budget a request spends: the API key, the user behind a bearer token, or the
 * client address when the credential is missing or invalid. The address is Express's
 * `req.ip`, which honours X-Forwarded-For only as far as TRUST_PROXY allows.
 */
export function callerOf(request: Request): { tier: Tier; tracker: string } {
  const principal = request.principal;
  if (principal?.kind === 'api-key') {
    return { tier: 'api-key', tracker: `key:${principal.apiKeyId}` };
  }
  if (principal?.kind === 'user') return { tier: 'user', tracker: `user:${principal.userId}` };
  return { tier: 'anonymous', tracker: `ip:${clientAddress(request.ip ?? 'unknown')}` };
}

// One IPv6 client usually holds a whole /64: count it as one address.
function clientAddress(ip: string): string {
  if (ip.startsWith('::ffff:')) return ip.slice(7);
  if (!isIPv6(ip)) return ip;
  const groups = expandIpv6(ip);
  return `${groups.slice(0, 4).join(':')}::/64`;
}

function expandIpv6(ip: string): string[] {
  const [head, tail = ''] = ip.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const zeros = Array<string>(8 - left.length - right.length).fill('0');
  return ip.includes('::') ? [...left, ...zeros, ...right] : left;
}

export const counterKey = (window: WindowName, tracker: string) => `${window}:${tracker}`;
