import { ApiProperty } from '@nestjs/swagger';
import { PaginationResponse } from '../../common/dto/pagination-response.dto.js';
import { ApiIdProperty, ApiTextProperty, ApiTimestampProperty } from '../../openapi/schemas.js';
import { ROLES, type Role } from '../../common/types/principal.js';
import { USER_STATUS_SCHEMA, type UserStatus } from '../user-status.js';
import { USERNAME_PATTERN } from '../../common/dto/username.js';
import { CUSTOMER_MATCHES } from '../users.service.js';

/** The User as clients see it: every field but the password hash. */
export class UserResponse {
  @ApiIdProperty('User id')
  id: number;

  @ApiTextProperty(32, 'Unique regardless of case', { pattern: USERNAME_PATTERN.source })
  username: string;

  @ApiTextProperty(100, 'First name; absent when not set', { required: false })
  firstName?: string;

  @ApiTextProperty(100, 'Last name; absent when not set', { required: false })
  lastName?: string;

  @ApiTextProperty(254, 'Email address as typed', { format: 'email' })
  email: string;

  @ApiTextProperty(
    254,
    'Your own change of email waiting for its mailed link to be used (24 h); absent otherwise',
    { format: 'email', required: false },
  )
  pendingEmail?: string;

  @ApiTextProperty(32, 'Phone number; absent when not set', { required: false })
  phone?: string;

  @ApiProperty(USER_STATUS_SCHEMA)
  userStatus: UserStatus;

  @ApiProperty({ enum: ROLES })
  role: Role;

  @ApiTimestampProperty('Creation time')
  createdAt: Date;

  @ApiTimestampProperty('Last change')
  updatedAt: Date;
}

export class UserListResponse {
  @ApiProperty({ type: [UserResponse], maxItems: 100, description: 'Ordered by id' })
  users: UserResponse[];

  @ApiProperty({ type: PaginationResponse })
  pagination: PaginationResponse;
}

/** A customer as staff find it to act for it: no address, no name, nothing but its handle. */
export class CustomerMatch {
  @ApiIdProperty('User id, the adoption’s adopterId')
  id: number;

  @ApiTextProperty(32, 'Unique regardless of case', { pattern: USERNAME_PATTERN.source })
  username: string;
}

export class CustomerMatchListResponse {
  @ApiProperty({
    type: [CustomerMatch],
    maxItems: CUSTOMER_MATCHES,
    description: 'Ordered by username',
  })
  customers: CustomerMatch[];
}
