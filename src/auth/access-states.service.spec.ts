import { beforeEach, describe, expect, it, jest } from '@jest/globals';
import { fakeTxHost } from '../../test/support/transactions.js';
import { userSnapshot } from '../../test/support/user-snapshot.js';
import type { AuthConfig } from '../config/auth.config.js';
import { UserStatus } from '../users/user-status.js';
import type { AccessState, UserLookupService } from '../users/user-lookup.service.js';
import { AccessStatesService } from './access-states.service.js';

const ACTIVE: AccessState = {
  userStatus: UserStatus.Active,
  role: 'admin',
  tokensValidAfter: null,
};
const DISABLED: AccessState = { ...ACTIVE, userStatus: UserStatus.Disabled };

describe(AccessStatesService.name, () => {
  const accessStateOf = jest.fn<UserLookupService['accessStateOf']>();
  let txHost: ReturnType<typeof fakeTxHost>;
  let sut: AccessStatesService;

  beforeEach(() => {
    accessStateOf.mockReset();
    txHost = fakeTxHost();
    sut = new AccessStatesService(
      { accessStateOf } as unknown as UserLookupService,
      {
        accessStateCacheTtlMs: 60_000,
      } as AuthConfig,
    );
  });

  /** A user's change as UsersService publishes it, in its transaction, which `fails` or not. */
  const change = (type: 'user.updated' | 'user.deleted', fails = false) =>
    txHost.withTransaction(() => {
      const event = { type, subject: 'user:7', userId: 7, before: userSnapshot(7) };
      sut.forgetOnCommit(event as Parameters<AccessStatesService['forgetOnCommit']>[0]);
      return fails ? Promise.reject(new Error('rolled back')) : Promise.resolve();
    });

  it('should answer repeated checks from the cache, a deleted user included', async () => {
    accessStateOf.mockResolvedValue(ACTIVE);
    accessStateOf.mockResolvedValueOnce(null);

    expect(await sut.of(8)).toBeNull();
    expect(await sut.of(8)).toBeNull();
    expect(await sut.of(7)).toEqual(ACTIVE);
    expect(await sut.of(7)).toEqual(ACTIVE);

    expect(accessStateOf).toHaveBeenCalledTimes(2);
  });

  it.each(['user.updated', 'user.deleted'] as const)(
    'should read the user again once a %s has committed',
    async (type) => {
      accessStateOf.mockResolvedValue(ACTIVE);
      await sut.of(7);
      accessStateOf.mockResolvedValue(DISABLED);

      await change(type);

      expect(await sut.of(7)).toEqual(DISABLED);
    },
  );

  it('should keep what it read when the change rolls back', async () => {
    accessStateOf.mockResolvedValue(ACTIVE);
    await sut.of(7);

    await expect(change('user.updated', true)).rejects.toThrow('rolled back');

    expect(await sut.of(7)).toEqual(ACTIVE);
    expect(accessStateOf).toHaveBeenCalledTimes(1);
  });
});
