import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';
import { ROLES, type Role } from '../types/principal.js';

export const ROLES_KEY = 'petstore:roles';

/** The OpenAPI extension listing a route's roles; the document adds the 403 that follows. */
export const REQUIRED_ROLES_EXTENSION = 'x-required-roles';

/**
 * The roles of an authenticated route without @Roles: a customer is let in only where a
 * route says so (@AnyRole), so that a new route is closed to it by default.
 */
export const DEFAULT_ROLES: readonly Role[] = ['admin', 'user'];

/**
 * Restricts a route (or every route of a controller) to principals with one of these roles.
 * It documents the restriction too (`x-required-roles`, from which the API description adds
 * the 403), so the two cannot drift.
 */
export const Roles = (...roles: Role[]) =>
  applyDecorators(SetMetadata(ROLES_KEY, roles), ApiExtension(REQUIRED_ROLES_EXTENSION, roles));

/** Opens a route to every role, customers included. */
export const AnyRole = () => Roles(...ROLES);
