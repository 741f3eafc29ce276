import { isIP } from 'node:net';
import type { NextFunction, Request, Response } from 'express';

/**
 * A client address is an IP address: Express's `req.ip` takes whatever X-Forwarded-For
 * holds at the position TRUST_PROXY points to, which a client that reaches the instance
 * directly writes itself. Anything else (markup, a made-up name, an address with a zone
 * id of any length) is ignored for the socket's address, so it can neither escape the
 * anonymous rate limit nor be stored as a session's or audit entry's `ip`.
 */
export function clientAddressMiddleware(req: Request, _res: Response, next: NextFunction): void {
  const forwarded = req.ip;
  if (forwarded !== undefined && !isClientAddress(forwarded)) {
    Object.defineProperty(req, 'ip', { value: req.socket.remoteAddress, configurable: true });
  }
  next();
}

function isClientAddress(value: string): boolean {
  return isIP(value) !== 0 && !value.includes('%');
}
