import { describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { fakeTxHost } from '../../test/support/transactions.js';
import type { DomainEvents } from '../events/domain-events.js';
import type { LoginLockoutService } from '../rate-limit/login-lockout.service.js';
import type { UserLookupService } from '../users/user-lookup.service.js';
import { AuthService } from './auth.service.js';
import type { MfaService } from './mfa/mfa.service.js';
import type { SessionsService } from './sessions/sessions.service.js';
import type { TokenService } from './token.service.js';

const CLIENT = { ip: '203.0.113.9', userAgent: 'curl/8' };

/** An AuthService whose every login is refused, publishing through `publish`. */
function refusingLogins(publish: DomainEvents['publish']) {
  const lockout = {
    isLocked: () => Promise.resolve(false),
    recordFailure: () => Promise.resolve(),
  };
  const txHost = fakeTxHost();
  const published: { inTransaction: boolean }[] = [];
  const sut = new AuthService(
    {
      findByUsername: () => Promise.resolve(null),
      verifyPassword: () => Promise.resolve(false),
    } as unknown as UserLookupService,
    {} as TokenService,
    lockout as unknown as LoginLockoutService,
    {} as SessionsService,
    {} as MfaService,
    {
      publish: (...events: Parameters<DomainEvents['publish']>) => {
        published.push({ inTransaction: txHost.active });
        return publish(...events);
      },
    } as DomainEvents,
    txHost.asHost(),
  );
  return { sut, published };
}

describe(AuthService.name, () => {
  describe('login', () => {
    it('should answer a refused login at once, publishing the failure in a transaction of its own', async () => {
      let finish: () => void = () => undefined;
      const publish = jest.fn<DomainEvents['publish']>(
        () => new Promise<void>((resolve) => (finish = resolve)),
      );
      const { sut, published } = refusingLogins(publish);

      await expect(sut.login({ username: 'mallory', password: 'guess' }, CLIENT)).rejects.toThrow(
        'Username or password is incorrect',
      );

      expect(publish).toHaveBeenCalledWith({
        type: 'auth.login_failed',
        subject: 'login:mallory',
        username: 'mallory',
      });
      expect(published).toEqual([{ inTransaction: true }]);
      let done = false;
      const shutdown = sut.beforeApplicationShutdown().then(() => (done = true));
      await Promise.resolve();
      expect(done).toBe(false);
      finish();
      await shutdown;
    });

    it('should never fail the answer when the failure cannot be published', async () => {
      const { sut } = refusingLogins(() => Promise.reject(new Error('database down')));
      const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);

      await expect(sut.login({ username: 'mallory', password: 'guess' }, CLIENT)).rejects.toThrow(
        'Username or password is incorrect',
      );
      await sut.beforeApplicationShutdown();

      expect(warn).toHaveBeenCalledWith('Failed login not recorded: database down');
      warn.mockRestore();
    });
  });
});
