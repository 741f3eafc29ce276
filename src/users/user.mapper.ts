import { UserResponse } from './dto/user-response.dto.js';
import type { User } from './user.entity.js';

// Unset fields become undefined, which JSON leaves out (docs/api.md: never null).
export function toUserResponse(user: User): UserResponse {
  return {
    id: user.id,
    username: user.username,
    firstName: user.firstName ?? undefined,
    lastName: user.lastName ?? undefined,
    email: user.email,
    phone: user.phone ?? undefined,
    pendingEmail: pendingEmailOf(user),
    userStatus: user.userStatus,
    role: user.role,
    createdAt: user.createdAt,
    updatedAt: user.updatedAt,
  };
}

/** Shown while its link works (docs/identity.md, "Mailed tokens and account flows"). */
function pendingEmailOf(user: User): string | undefined {
  const { pendingEmail, pendingEmailExpiresAt } = user;
  return pendingEmail !== null &&
    pendingEmailExpiresAt !== null &&
    pendingEmailExpiresAt > new Date()
    ? pendingEmail
    : undefined;
}
