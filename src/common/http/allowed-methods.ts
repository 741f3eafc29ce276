import type { Request } from 'express';
import { METHODS } from 'node:http';

interface RouteLayer {
  route?: { methods: Record<string, boolean> };
  match(path: string): boolean;
}

/**
 * The methods Express has routes for at this request's path: non-empty when the
 * path is known but the method is not (405), empty when the path is unknown (404).
 */
export function allowedMethods(request: Request): string[] {
  const path = originalPath(request);
  const stack = (request.app.router as unknown as { stack: RouteLayer[] }).stack;
  const methods = new Set<string>();
  for (const layer of stack) {
    if (!layer.route || !layer.match(path)) continue;
    const enabled = Object.entries(layer.route.methods)
      .filter(([method, on]) => on && method !== '_all')
      .map(([method]) => method.toUpperCase());
    // Express 5's app.all() adds a route for every method; Nest mounts middleware on exact
    // paths (those outside the prefix) that way. Such a route is not an endpoint.
    if (enabled.length >= METHODS.length) continue;
    for (const method of enabled) methods.add(method);
  }
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort();
}

/** The full path: inside the global prefix's router, `request.path` lacks the prefix. */
export function originalPath(request: Request): string {
  return request.originalUrl.split('?')[0];
}
