import type { Role } from '../common/types/principal.js';
import type { UserStatus } from './user-status.js';
import type { User } from './user.entity.js';

/** The User as clients see it: every field but the password hash. */
export interface UserResponse {
  id: number;
  username: string;
  firstName: string | null;
  lastName: string | null;
  email: string;
  phone: string | null;
  userStatus: UserStatus;
  role: Role;
  createdAt: Date;
  updatedAt: Date;
}

export function toUserResponse(user: User): UserResponse {
  return {
    id: user.id,
    username: user.username,
    firstName: user.firstName,
    lastName: user.lastName,
    email: user.email,
    phone: user.phone,
    userStatus: user.userStatus,
    role: user.role,
    createdAt: user.createdAt,
    updatedAt: user.updatedAt,
  };
}
