import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import type { DomainEvent } from '../events/domain-event.js';
import type { LoginLockoutService } from '../rate-limit/login-lockout.service.js';
import type { PasswordService } from './password.service.js';
import { UserStatus } from './user-status.js';
import type { User } from './user.entity.js';
import { UsersRepository } from './users.repository.js';
import { UsersService } from './users.service.js';
import { refusal } from '../../test/support/errors.js';
import { recordingDomainEvents } from '../../test/support/domain-events.js';
import { UserEventPublisher } from './user-event-publisher.js';
import { fakeTxHost } from '../../test/support/transactions.js';

function user(id: number, fields: Partial<User> = {}): User {
  const at = new Date(Date.UTC(2026, 0, 1));
  return {
    id,
    username: `user${id}`,
    email: `user${id}@example.com`,
    passwordHash: 'stored hash',
    firstName: null,
    lastName: null,
    phone: null,
    userStatus: UserStatus.Active,
    role: 'user',
    tokensValidAfter: null,
    pendingEmail: null,
    pendingEmailExpiresAt: null,
    unverifiedSignUp: false,
    version: 1,
    createdAt: at,
    updatedAt: at,
    ...fields,
  };
}

/** Every repository method a stub. */
function fakeRepository() {
  const findById = jest.fn<UsersRepository['findById']>();
  return {
    findPage: jest.fn<UsersRepository['findPage']>(),
    findActiveCustomers: jest.fn<UsersRepository['findActiveCustomers']>(),
    findById,
    // The same user, as the stubbed findById gives it.
    findForUpdate: jest.fn<UsersRepository['findForUpdate']>((id) => findById(id)),
    findByUsername: jest.fn<UsersRepository['findByUsername']>(),
    findByEmail: jest.fn<UsersRepository['findByEmail']>(),
    findEmails: jest.fn<UsersRepository['findEmails']>(),
    findAccess: jest.fn<UsersRepository['findAccess']>(),
    adminExists: jest.fn<UsersRepository['adminExists']>(),
    insert: jest.fn<UsersRepository['insert']>(),
    insertAdminUnlessTaken: jest.fn<UsersRepository['insertAdminUnlessTaken']>(),
    update: jest.fn<UsersRepository['update']>(),
    updateWhere: jest.fn<UsersRepository['updateWhere']>(),
    delete: jest.fn<UsersRepository['delete']>(),
    lock: jest.fn<UsersRepository['lock']>(),
    lockUnverifiedSignUps: jest.fn<UsersRepository['lockUnverifiedSignUps']>(),
    deleteAll: jest.fn<UsersRepository['deleteAll']>(),
  } satisfies Record<keyof UsersRepository, unknown>;
}

const passwords = {
  hashPassword: (password: string) => Promise.resolve(`hash of ${password}`),
  verifyPassword: (stored: string | undefined, password: string) =>
    Promise.resolve(stored === `hash of ${password}`),
} as PasswordService;

describe(UsersService.name, () => {
  let repository: ReturnType<typeof fakeRepository>;
  let lockout: {
    isLocked: jest.Mock<(username: string) => Promise<boolean>>;
    recordFailure: jest.Mock<(username: string) => Promise<void>>;
  };
  let txHost: ReturnType<typeof fakeTxHost>;
  /** Repository writes, published events and the commit, in order. */
  let calls: string[];
  let published: DomainEvent[];
  let sut: UsersService;

  beforeEach(() => {
    repository = fakeRepository();
    txHost = fakeTxHost();
    calls = [];
    txHost.onCommit = () => calls.push('commit');
    const events = recordingDomainEvents(txHost.asHost(), (entry) => calls.push(entry));
    published = events.published;
    lockout = {
      isLocked: jest.fn(() => Promise.resolve(false)),
      recordFailure: jest.fn(() => Promise.resolve()),
    };
    sut = new UsersService(
      repository as unknown as UsersRepository,
      passwords,
      lockout as unknown as LoginLockoutService,
      new UserEventPublisher(events.events),
      txHost.asHost(),
    );
  });

  afterEach(() => {
    jest.restoreAllMocks();
  });

  describe('findOne', () => {
    it('should answer 404 USER_NOT_FOUND for a user that does not exist', async () => {
      repository.findById.mockResolvedValue(null);

      const error = await refusal(sut.findOne(41));

      expect(error.getStatus()).toBe(404);
      expect(error.code).toBe('USER_NOT_FOUND');
    });
  });

  describe('create', () => {
    it('should store the password’s hash, never the password', async () => {
      repository.insert.mockResolvedValue(user(1));

      await sut.create({ username: 'alice', email: 'a@example.com', password: 'correct horse' });

      expect(repository.insert).toHaveBeenCalledWith({
        username: 'alice',
        email: 'a@example.com',
        passwordHash: 'hash of correct horse',
      });
    });
  });

  describe('create with invite, and register', () => {
    beforeEach(() => {
      repository.insert.mockImplementation((fields) => Promise.resolve(user(9, fields)));
    });

    it('should create an invited account pending, with a password no one knows, and publish user.created', async () => {
      await sut.create({ username: 'bob', email: 'b@example.com', invite: true });

      const [fields] = repository.insert.mock.calls[0];
      expect(fields).toEqual({
        username: 'bob',
        email: 'b@example.com',
        userStatus: UserStatus.Pending,
        passwordHash: expect.stringMatching(/^hash of [0-9a-f-]{36}$/),
      });
      expect(published).toEqual([
        {
          type: 'user.created',
          subject: 'user:9',
          userId: 9,
          origin: 'invitation',
          after: expect.objectContaining({
            id: 9,
            username: 'bob',
            userStatus: UserStatus.Pending,
          }),
        },
      ]);
    });

    it('should register a pending customer with the given hash', async () => {
      await sut.register({ username: 'carol', email: 'c@example.com' }, 'the hash');

      expect(repository.insert).toHaveBeenCalledWith({
        username: 'carol',
        email: 'c@example.com',
        passwordHash: 'the hash',
        role: 'customer',
        userStatus: UserStatus.Pending,
        unverifiedSignUp: true,
      });
      expect(published).toEqual([expect.objectContaining({ origin: 'registration' })]);
    });
  });

  describe('mailed-link changes', () => {
    beforeEach(() => {
      repository.findById.mockImplementation((id) => Promise.resolve(user(id)));
      repository.updateWhere.mockResolvedValue(true);
    });

    it('should activate only a pending account on verification, publishing only a change', async () => {
      await sut.verifyEmail(7);
      repository.updateWhere.mockResolvedValue(false);
      await sut.verifyEmail(8);

      const activation = { userStatus: UserStatus.Active, unverifiedSignUp: false };
      expect(repository.updateWhere.mock.calls).toEqual([
        [{ id: 7, userStatus: UserStatus.Pending }, activation],
        [{ id: 8, userStatus: UserStatus.Pending }, activation],
      ]);
      expect(published).toEqual([
        expect.objectContaining({ userId: 7, fields: ['userStatus', 'unverifiedSignUp'] }),
      ]);
    });

    it.each([
      [UserStatus.Pending, { userStatus: UserStatus.Active, unverifiedSignUp: false }],
      [UserStatus.Disabled, {}],
    ])(
      'should set the hash and the cut-off by a link, activating a user of status %s only if pending',
      async (userStatus, activation) => {
        repository.findById.mockResolvedValue(user(7, { userStatus }));

        await sut.setPasswordByMail(7, 'the hash');

        expect(repository.updateWhere).toHaveBeenCalledWith(
          { id: 7 },
          { passwordHash: 'the hash', tokensValidAfter: expect.any(Date), ...activation },
        );
      },
    );

    it('should apply an email change only while it is the pending one', async () => {
      expect(await sut.confirmEmailChange(7, 'n@example.com')).toBe(true);
      expect(repository.updateWhere).toHaveBeenCalledWith(
        { id: 7, pendingEmail: 'n@example.com' },
        { email: 'n@example.com', pendingEmail: null, pendingEmailExpiresAt: null },
      );
    });

    it('should keep a user’s own new email pending for 24 h, and cancel it with the current one', async () => {
      repository.findById.mockResolvedValue(user(7, { passwordHash: 'hash of pw' }));
      repository.update.mockResolvedValue(true);
      const before = Date.now();

      await sut.update(7, { email: 'n@example.com', currentPassword: 'pw' }, undefined, {
        emailByMail: true,
      });
      await sut.update(7, { email: 'USER7@example.com', currentPassword: 'pw' }, undefined, {
        emailByMail: true,
      });

      const [[, pending], [, cancelled]] = repository.update.mock.calls;
      expect(pending).toEqual({
        pendingEmail: 'n@example.com',
        pendingEmailExpiresAt: expect.any(Date),
      });
      expect(pending.pendingEmailExpiresAt!.getTime() - before).toBeGreaterThanOrEqual(
        24 * 3600 * 1000,
      );
      expect(cancelled).toEqual({ pendingEmail: null, pendingEmailExpiresAt: null });
    });
  });

  describe('update', () => {
    beforeEach(() => {
      repository.findById.mockResolvedValue(user(7));
      repository.update.mockResolvedValue(true);
    });

    describe('with currentPassword', () => {
      beforeEach(() => {
        repository.findById.mockResolvedValue(user(7, { passwordHash: 'hash of old password' }));
      });

      it('should write the change, without currentPassword, when it is the user’s password', async () => {
        await sut.update(7, { email: 'new@example.com', currentPassword: 'old password' });

        expect(repository.update).toHaveBeenCalledWith(7, { email: 'new@example.com' }, undefined);
        expect(lockout.recordFailure).not.toHaveBeenCalled();
        expect(published).toEqual([expect.objectContaining({ fields: ['email'] })]);
      });

      it('should answer 403 INVALID_CURRENT_PASSWORD, count a failed login and write nothing when it is wrong', async () => {
        const error = await refusal(
          sut.update(7, { email: 'new@example.com', currentPassword: 'guess' }),
        );

        expect(error.getStatus()).toBe(403);
        expect(error.code).toBe('INVALID_CURRENT_PASSWORD');
        expect(error.message).not.toContain('guess');
        expect(lockout.recordFailure).toHaveBeenCalledWith('user7');
        expect(repository.update).not.toHaveBeenCalled();
      });

      it('should refuse the right one alike while the username is locked', async () => {
        lockout.isLocked.mockResolvedValue(true);

        const error = await refusal(
          sut.update(7, { email: 'new@example.com', currentPassword: 'old password' }),
        );

        expect(error.code).toBe('INVALID_CURRENT_PASSWORD');
        expect(lockout.isLocked).toHaveBeenCalledWith('user7');
        expect(lockout.recordFailure).toHaveBeenCalledWith('user7');
        expect(repository.update).not.toHaveBeenCalled();
      });
    });

    it('should answer 404 USER_NOT_FOUND and publish nothing when nothing matched and the user does not exist', async () => {
      repository.update.mockResolvedValue(false);
      repository.findById.mockResolvedValue(null);

      const error = await refusal(sut.update(7, { password: 'new password' }));

      expect(error.code).toBe('USER_NOT_FOUND');
      expect(published).toEqual([]);
    });

    it('should answer 412 PRECONDITION_FAILED and publish nothing when the version is not in If-Match', async () => {
      repository.update.mockResolvedValue(false);
      repository.findById.mockResolvedValue(user(7, { version: 3 }));

      const error = await refusal(sut.update(7, { password: 'new password' }, ['2']));

      expect(error.code).toBe('PRECONDITION_FAILED');
      expect(error.details).toEqual({ currentEtag: '"3"' });
      expect(repository.update.mock.calls[0][2]).toEqual([2]);
      expect(published).toEqual([]);
    });

    it('should store a new password’s hash, cut off earlier tokens, and publish user.updated naming them in the same transaction', async () => {
      repository.update.mockImplementation(() => {
        calls.push(txHost.active ? 'update' : 'update outside');
        return Promise.resolve(true);
      });
      const before = Date.now();

      await sut.update(7, { password: 'new password' });

      expect(repository.findById).toHaveBeenCalledWith(7);
      const [, changes] = repository.update.mock.calls[0];
      expect(changes.passwordHash).toBe('hash of new password');
      expect(changes.tokensValidAfter!.getTime()).toBeGreaterThanOrEqual(before);
      expect(calls).toEqual(['update', 'user.updated', 'commit']);
      expect(published).toEqual([
        {
          type: 'user.updated',
          subject: 'user:7',
          userId: 7,
          fields: ['passwordHash', 'tokensValidAfter'],
          origin: 'edit',
          before: expect.objectContaining({ id: 7 }),
          after: expect.objectContaining({ id: 7 }),
        },
      ]);
    });

    it.each([UserStatus.Disabled, UserStatus.Pending])(
      'should cut off earlier tokens, and publish no password change, when the status becomes %s',
      async (userStatus) => {
        await sut.update(7, { userStatus });

        const [, changes] = repository.update.mock.calls[0];
        expect(changes).toEqual({ userStatus, tokensValidAfter: expect.any(Date) });
        expect(published).toEqual([
          expect.objectContaining({ userId: 7, fields: ['userStatus', 'tokensValidAfter'] }),
        ]);
      },
    );

    it('should leave the token cut-off alone when the account stays active, and end its expiry as a sign-up', async () => {
      await sut.update(7, { userStatus: UserStatus.Active, firstName: 'Al' });

      const [, changes] = repository.update.mock.calls[0];
      expect(changes).toEqual({
        userStatus: UserStatus.Active,
        firstName: 'Al',
        unverifiedSignUp: false,
      });
      expect(published).toEqual([
        expect.objectContaining({
          type: 'user.updated',
          fields: ['userStatus', 'firstName', 'unverifiedSignUp'],
        }),
      ]);
    });
  });

  describe('remove', () => {
    it('should answer 404 USER_NOT_FOUND when nothing was deleted and the user does not exist', async () => {
      repository.delete.mockResolvedValue(false);
      repository.findById.mockResolvedValue(null);

      const error = await refusal(sut.remove(41));

      expect(error.code).toBe('USER_NOT_FOUND');
    });

    it('should publish user.deleting, then user.deleted with the user as it was', async () => {
      repository.findById.mockResolvedValue(user(7));
      repository.delete.mockResolvedValue(true);

      await sut.remove(7);

      expect(published).toEqual([
        { type: 'user.deleting', subject: 'user:7', userId: 7 },
        {
          type: 'user.deleted',
          subject: 'user:7',
          userId: 7,
          before: expect.objectContaining({ id: 7, username: user(7).username }),
        },
      ]);
      expect(published[1]).not.toHaveProperty('before.passwordHash');
    });
  });

  describe('ensureAdmin', () => {
    it('should create nothing when an admin exists', async () => {
      repository.adminExists.mockResolvedValue(true);

      expect(await sut.ensureAdmin('root', 'root@example.com', 'secret')).toBe(false);
      expect(repository.insertAdminUnlessTaken).not.toHaveBeenCalled();
    });

    it('should insert the admin with the password’s hash', async () => {
      repository.adminExists.mockResolvedValue(false);
      repository.insertAdminUnlessTaken.mockResolvedValue(true);

      expect(await sut.ensureAdmin('root', 'root@example.com', 'secret')).toBe(true);
      expect(repository.insertAdminUnlessTaken).toHaveBeenCalledWith(
        'root',
        'root@example.com',
        'hash of secret',
      );
    });

    it('should warn when the username is taken and still no admin exists', async () => {
      const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
      repository.adminExists.mockResolvedValue(false);
      repository.insertAdminUnlessTaken.mockResolvedValue(false);

      expect(await sut.ensureAdmin('root', 'root@example.com', 'secret')).toBe(false);
      expect(warn).toHaveBeenCalledWith(expect.stringContaining('create-admin'));
    });

    it('should stay silent when a concurrent start created the admin first', async () => {
      const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
      repository.adminExists.mockResolvedValueOnce(false).mockResolvedValueOnce(true);
      repository.insertAdminUnlessTaken.mockResolvedValue(false);

      expect(await sut.ensureAdmin('root', 'root@example.com', 'secret')).toBe(false);
      expect(warn).not.toHaveBeenCalled();
    });
  });
});
