import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import helmet, { type HelmetOptions } from 'helmet';

/**
 * helmet's headers for `options`, worked out once at start-up. With fixed options (no
 * directive computed per request, such as a CSP nonce) none of them depends on the
 * request, yet helmet() would run its dozen middlewares, one `setHeader` each, on every
 * request; this sets the same headers in one call.
 */
export function securityHeaders(options: HelmetOptions): RequestHandler {
  const headers = new Map<string, string>();
  const recorder = {
    setHeader: (name: string, value: string) => headers.set(name, value),
    // X-Powered-By, which helmet removes, is never set: configureApp() disables it.
    removeHeader: () => undefined,
  };
  helmet(options)({} as IncomingMessage, recorder as unknown as ServerResponse, (error) => {
    if (error) throw error as Error;
  });
  return (_request, response, next) => {
    response.setHeaders(headers);
    next();
  };
}
