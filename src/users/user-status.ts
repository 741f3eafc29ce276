/** The contract's `userStatus`: only active accounts can log in or use their credentials. */
export const UserStatus = { Active: 0, Disabled: 1, Pending: 2 } as const;
export type UserStatus = (typeof UserStatus)[keyof typeof UserStatus];
export const USER_STATUSES: UserStatus[] = Object.values(UserStatus);
