import { SetMetadata } from '@nestjs/common';
import type { Role } from '../types/principal.js';

export const ROLES_KEY = 'petstore:roles';

/** Restricts a route (or every route of a controller) to principals with one of these roles. */
export const Roles = (...roles: Role[]) => SetMetadata(ROLES_KEY, roles);
