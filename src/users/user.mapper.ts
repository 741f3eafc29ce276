import { UserResponse } from './dto/user-response.dto.js';
import type { User } from './user.entity.js';

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
