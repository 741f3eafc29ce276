import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { fakeTxHost } from '../../../test/support/transactions.js';
import { userSnapshot } from '../../../test/support/user-snapshot.js';
import type { DomainEvents } from '../../events/domain-events.js';
import type { AuthConfig } from '../../config/auth.config.js';
import type { UserUpdated } from '../../users/user-events.js';
import type { UserLookupService } from '../../users/user-lookup.service.js';
import type { SessionsRepository } from './sessions.repository.js';
import { ENDED_SESSION_RETENTION_SECONDS, SessionsService } from './sessions.service.js';

const TTL_MS = 30_000;
const cfg = { accessStateCacheTtlMs: TTL_MS, refreshTokenTtlSeconds: 600 } as AuthConfig;
const events = { publish: () => Promise.resolve() } as unknown as DomainEvents;

describe(SessionsService.name, () => {
  let live: boolean;
  const isLive = jest.fn((_id: number, _userId: number) => Promise.resolve(live));
  const revokeOwned = jest.fn((_userId: number, _id: number) => Promise.resolve(true));
  const rotate = jest.fn(() => Promise.resolve(undefined));
  const revokeBySpentToken = jest.fn((_hash: string) => Promise.resolve([] as number[]));
  const revokeAllOfUser = jest.fn((_userId: number) => Promise.resolve([] as number[]));
  let sut: SessionsService;

  beforeEach(() => {
    jest.useFakeTimers({ now: new Date('2026-11-27T10:00:00Z') });
    live = true;
    isLive.mockClear();
    rotate.mockClear();
    revokeAllOfUser.mockClear();
    const sessions = { isLive, revokeOwned, rotate, revokeBySpentToken, revokeAllOfUser };
    sut = new SessionsService(
      sessions as unknown as SessionsRepository,
      {} as UserLookupService,
      cfg,
      events,
      fakeTxHost().asHost(),
    );
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  describe('isLive', () => {
    it('should trust what it read for ACCESS_STATE_CACHE_TTL_MS, then read again', async () => {
      expect(await sut.isLive(7, 42)).toBe(true);
      // Revoked on another instance.
      live = false;
      jest.advanceTimersByTime(TTL_MS - 1);
      expect(await sut.isLive(7, 42)).toBe(true);
      jest.advanceTimersByTime(1);
      expect(await sut.isLive(7, 42)).toBe(false);
      expect(isLive).toHaveBeenCalledTimes(2);
    });

    it('should forget a session revoked through this instance at once', async () => {
      expect(await sut.isLive(7, 42)).toBe(true);
      live = false;
      await sut.revokeOwn(42, 7);
      expect(await sut.isLive(7, 42)).toBe(false);
    });
  });

  describe('revokeOnCutOff', () => {
    const userUpdated = (fields: UserUpdated['fields']): UserUpdated => ({
      type: 'user.updated',
      subject: 'user:42',
      userId: 42,
      fields,
      origin: 'edit',
      before: userSnapshot(42),
      after: userSnapshot(42),
    });

    it('should revoke every session of a user whose token cut-off moved', async () => {
      // A password change, or a deactivation: UsersService.update sets tokensValidAfter for both.
      await sut.revokeOnCutOff(userUpdated(['passwordHash', 'tokensValidAfter']));
      await sut.revokeOnCutOff(userUpdated(['userStatus', 'tokensValidAfter']));
      expect(revokeAllOfUser.mock.calls).toEqual([[42], [42]]);
    });

    it('should leave the sessions alone on other changes', async () => {
      await sut.revokeOnCutOff(userUpdated(['firstName', 'role', 'userStatus']));
      expect(revokeAllOfUser).not.toHaveBeenCalled();
    });
  });

  describe('refresh', () => {
    it('should refuse a malformed token without the database', async () => {
      await expect(sut.refresh('rt_short')).rejects.toMatchObject({
        code: 'INVALID_REFRESH_TOKEN',
      });
      expect(rotate).not.toHaveBeenCalled();
    });

    it('should revoke the session of a spent token, and refuse it', async () => {
      const token = `rt_${'C'.repeat(43)}`;
      revokeBySpentToken.mockResolvedValueOnce([7]);
      await expect(sut.refresh(token)).rejects.toMatchObject({ code: 'INVALID_REFRESH_TOKEN' });
      expect(revokeBySpentToken).toHaveBeenCalledWith(expect.stringMatching(/^[0-9a-f]{64}$/));
    });
  });

  describe('removeEnded', () => {
    it('should delete the sessions ended more than 7 days ago, a batch at a time, until one comes back short', async () => {
      let left = 2_503;
      const deleteEnded = jest.fn<SessionsRepository['deleteEnded']>((_retention, limit) => {
        const deleted = Math.min(left, limit);
        left -= deleted;
        return Promise.resolve(deleted);
      });
      sut = new SessionsService(
        { deleteEnded } as unknown as SessionsRepository,
        {} as UserLookupService,
        cfg,
        events,
        fakeTxHost().asHost(),
      );

      expect(await sut.removeEnded()).toBe(2_503);

      expect(left).toBe(0);
      expect(ENDED_SESSION_RETENTION_SECONDS).toBe(7 * 24 * 3600);
      const [, batch] = deleteEnded.mock.calls[0];
      expect(deleteEnded.mock.calls).toEqual(
        Array.from({ length: Math.floor(2_503 / batch) + 1 }, () => [
          ENDED_SESSION_RETENTION_SECONDS,
          batch,
        ]),
      );
    });
  });
});
