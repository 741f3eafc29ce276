import { describe, expect, it } from '@jest/globals';
import {
  awaitsVerification,
  canUseCredentials,
  cutsOffTokens,
  statusAfterMailedLink,
} from './user-lifecycle.js';
import { UserStatus } from './user-status.js';

describe('the account lifecycle', () => {
  it('should activate a pending account with a mailed link, and leave any other status', () => {
    expect(statusAfterMailedLink(UserStatus.Pending)).toBe(UserStatus.Active);
    expect(statusAfterMailedLink(UserStatus.Active)).toBe(UserStatus.Active);
    expect(statusAfterMailedLink(UserStatus.Disabled)).toBe(UserStatus.Disabled);
  });

  it.each([
    [UserStatus.Active, true, false, false],
    [UserStatus.Disabled, false, false, true],
    [UserStatus.Pending, false, true, true],
  ])(
    'should let status %s use credentials: %s, await verification: %s, cut tokens off: %s',
    (status, uses, awaits, cuts) => {
      expect(canUseCredentials(status)).toBe(uses);
      expect(awaitsVerification(status)).toBe(awaits);
      expect(cutsOffTokens(status)).toBe(cuts);
    },
  );
});
