import { NotFoundException } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { allowedMethods } from './allowed-methods.js';
import { isUnderApiPrefix } from './route-space.js';

/**
 * Nest answers unknown paths itself only under the global prefix; elsewhere Express
 * would send its own HTML 404. Registered before the routes, this sends unknown paths
 * outside the prefix to Nest's error handler (and so to the one exception filter).
 */
export function outsidePrefixNotFound(req: Request, _res: Response, next: NextFunction): void {
  if (isUnderApiPrefix(req.path) || allowedMethods(req).length > 0) return next();
  next(new NotFoundException());
}
