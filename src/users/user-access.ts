import { ApiException } from '../common/errors/api-exception.js';
import type { Principal } from '../common/types/principal.js';
import type { CreateUserDto } from './dto/create-user.dto.js';
import type { UpdateUserDto } from './dto/update-user.dto.js';
import { canUseCredentials } from './user-lifecycle.js';

const isSelf = (principal: Principal, userId: number) => principal.userId === userId;

/** Admins read anyone; others only themselves. Checked before the look-up, so ids don't leak. */
export function assertCanReadUser(principal: Principal, userId: number): void {
  if (principal.role !== 'admin' && !isSelf(principal, userId)) {
    throw ApiException.forbidden('Only an admin can read other users');
  }
}

/**
 * Role and status decide what an account may do: granting them takes a bearer token, so
 * that a leaked admin key cannot create an admin (or re-enable an account) and log in as it.
 */
function assertBearerForAccessChange(
  principal: Principal,
  { role, userStatus }: Pick<UpdateUserDto, 'role' | 'userStatus'>,
): void {
  if (principal.kind === 'api-key' && (role !== undefined || userStatus !== undefined)) {
    throw ApiException.forbidden('Setting role or userStatus takes a bearer token, not an API key');
  }
}

/** Only reached by admins (the route is @Roles('admin')). */
export function assertCanCreateUser(principal: Principal, dto: CreateUserDto): void {
  assertBearerForAccessChange(principal, { role: dto.role });
}

export function assertCanUpdateUser(
  principal: Principal,
  userId: number,
  dto: UpdateUserDto,
): void {
  assertCanReadUser(principal, userId);
  if (principal.role !== 'admin' && (dto.role !== undefined || dto.userStatus !== undefined)) {
    throw ApiException.forbidden('Only an admin can change role or userStatus');
  }
  assertBearerForAccessChange(principal, dto);
  // A leaked key must not be able to take the account over (and then mint keys).
  if (principal.kind === 'api-key' && dto.password !== undefined) {
    throw ApiException.forbidden('Changing a password takes a bearer token, not an API key');
  }
  const demotesItself =
    (dto.role !== undefined && dto.role !== 'admin') ||
    (dto.userStatus !== undefined && !canUseCredentials(dto.userStatus));
  if (principal.role === 'admin' && isSelf(principal, userId) && demotesItself) {
    throw new ApiException(
      'CONFLICT',
      'An admin cannot remove its own admin role or deactivate itself',
    );
  }
  assertCurrentPasswordWhereNeeded(principal, userId, dto);
}

const CONFIRMED_FIELDS = ['password', 'email', 'username'] as const;

const currentPasswordRefused = (rule: string) =>
  ApiException.validation([{ field: 'currentPassword', message: `currentPassword ${rule}` }]);

/**
 * A stolen token (or key) must not take the account over for good: changing one's own
 * password, or the email or username that a login and its recovery rest on, takes the
 * current password, admins included. It is taken nowhere else, so that a client never
 * believes a password it sent was checked when it was not. Whether it is right is the
 * service's check (UsersService.update).
 */
function assertCurrentPasswordWhereNeeded(
  principal: Principal,
  userId: number,
  { currentPassword, ...changes }: UpdateUserDto,
): void {
  const needed =
    isSelf(principal, userId) && CONFIRMED_FIELDS.some((field) => changes[field] !== undefined);
  if (needed && currentPassword === undefined) {
    throw currentPasswordRefused('is required to change your own password, email or username');
  }
  if (!needed && currentPassword !== undefined) {
    throw currentPasswordRefused(
      'is taken only with a change of your own password, email or username',
    );
  }
}

/** Only reached by admins (the route is @Roles('admin')). */
export function assertCanDeleteUser(principal: Principal, userId: number): void {
  if (isSelf(principal, userId)) {
    throw new ApiException('CONFLICT', 'An admin cannot delete itself');
  }
}
