import type { Request } from 'express';

/**
 * The route template that served a request (`/v1/pets/:petId`), never the raw path: logs
 * and metrics group by it, and a path with ids would give every pet a metric series.
 */
export function routeOf(request: Request): string {
  const path: unknown = (request.route as { path?: unknown } | undefined)?.path;
  return typeof path === 'string' ? path : 'unmatched';
}
