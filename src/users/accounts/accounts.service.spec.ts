import { describe, expect, it } from '@jest/globals';
import type { AuthConfig } from '../../config/auth.config.js';
import type { DomainEvents } from '../../events/domain-events.js';
import type { AccountMailer } from '../mails/account.mailer.js';
import type { PasswordService } from '../password.service.js';
import { UserStatus } from '../user-status.js';
import type { UsersService } from '../users.service.js';
import { fakeTxHost } from '../../../test/support/transactions.js';
import type { AccountsRepository } from './accounts.repository.js';
import { AccountsService } from './accounts.service.js';

type Holder = Awaited<ReturnType<UsersService['findByEmail']>>;

const OWNER = {
  id: 7,
  email: 'owner@example.com',
  userStatus: UserStatus.Active,
} as NonNullable<Holder>;
const SIGN_UP = { username: 'newcomer', email: OWNER.email, password: 'a long password' };
const ASKER = {
  requester: 'ip:192.0.2.1',
  origin: { ip: '192.0.2.1', userAgent: null, requestId: null, clientRequestId: null },
};

/** Every call `target` gets is logged as `name.method`, then answered by `answers`. */
function recording<T>(name: string, log: string[], answers: Record<string, unknown> = {}): T {
  return new Proxy(
    {},
    {
      get:
        (_, method: string) =>
        (...args: unknown[]) => {
          log.push(`${name}.${method}`);
          const answer = answers[method];
          return Promise.resolve(
            typeof answer === 'function'
              ? (answer as (...a: unknown[]) => unknown)(...args)
              : answer,
          );
        },
    },
  ) as T;
}

/** What each route's answer does, in order, when the address is `holder`'s (or no one's). */
async function answerPath(
  holder: Holder,
  route: (sut: AccountsService) => Promise<void>,
): Promise<string[]> {
  const log: string[] = [];
  const sut = new AccountsService(
    recording<AccountsRepository>('accounts', log, { takeMailQuota: true }),
    recording<UsersService>('users', log, {
      findByUsername: null,
      findByEmail: holder,
      register: { id: 8 },
    }),
    recording<PasswordService>('passwords', log, { hashPassword: 'hash' }),
    recording<AccountMailer>('mailer', log),
    recording<DomainEvents>('events', log, {
      publish: (event: { type: string }) => log.push(`published ${event.type}`),
    }),
    fakeTxHost().asHost(),
    { registration: 'open' } as AuthConfig,
  );
  await route(sut);
  return log;
}

describe(AccountsService.name, () => {
  describe('the answer to an anonymous request naming an address', () => {
    it.each([
      ['register', (sut: AccountsService) => sut.register(SIGN_UP, ASKER)],
      ['resendVerification', (sut: AccountsService) => sut.resendVerification(OWNER.email, ASKER)],
      ['forgotPassword', (sut: AccountsService) => sut.forgotPassword(OWNER.email, ASKER)],
    ])(
      'should do the same work in %s for a known address and an unknown one, looking neither up',
      async (_, route) => {
        const known = await answerPath(OWNER, route);
        const unknown = await answerPath(null, route);

        expect(known).toEqual(unknown);
        expect(known).not.toContain('users.findByEmail');
        expect(known).toContain('published account.mail_asked');
      },
    );
  });
});
