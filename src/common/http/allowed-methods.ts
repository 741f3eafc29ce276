import type { Request } from 'express';

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
    for (const [method, enabled] of Object.entries(layer.route.methods)) {
      if (enabled && method !== '_all') methods.add(method.toUpperCase());
    }
  }
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort();
}

/** The full path: inside the global prefix's router, `request.path` lacks the prefix. */
export function originalPath(request: Request): string {
  return request.originalUrl.split('?')[0];
}
