import type { UserSnapshot } from '../../src/users/user-events.js';
import { UserStatus } from '../../src/users/user-status.js';

/** A user as the user events carry it, for unit tests that build such events. */
export const userSnapshot = (id: number): UserSnapshot => ({
  id,
  username: `user${id}`,
  email: `user${id}@example.com`,
  firstName: null,
  lastName: null,
  phone: null,
  userStatus: UserStatus.Active,
  role: 'user',
  pendingEmail: null,
});
