/**
 * `userStatus` (docs/identity.md, Users and roles): only active accounts can log in or use
 * their credentials.
 */
export const UserStatus = { Active: 0, Disabled: 1, Pending: 2 } as const;
export type UserStatus = (typeof UserStatus)[keyof typeof UserStatus];
export const USER_STATUSES: UserStatus[] = Object.values(UserStatus);

/** userStatus as documented in the API description. */
export const USER_STATUS_SCHEMA = {
  type: 'integer',
  format: 'int32',
  enum: USER_STATUSES,
  minimum: 0,
  maximum: 2,
  description: '0 active, 1 disabled, 2 pending email verification',
} as const;
