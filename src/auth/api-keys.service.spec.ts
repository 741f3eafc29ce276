import { beforeEach, describe, expect, it, jest } from '@jest/globals';
import { userSnapshot } from '../../test/support/user-snapshot.js';
import { API_KEY_SCOPES } from '../common/types/api-key-scope.js';
import type { DomainEvents } from '../events/domain-events.js';
import type { AuthConfig } from '../config/auth.config.js';
import type { UserUpdated } from '../users/user-events.js';
import { UserStatus } from '../users/user-status.js';
import type { UserLookupService } from '../users/user-lookup.service.js';
import { generateApiKey, hashApiKey } from './api-key-format.js';
import type { ApiKey } from './api-key.entity.js';
import { ApiKeysRepository, type ApiKeyCredentialRow } from './api-keys.repository.js';
import { ApiKeysService } from './api-keys.service.js';
import { refusal } from '../../test/support/errors.js';
import { fakeTxHost } from '../../test/support/transactions.js';

const cfg = { apiKeyModes: ['live'], apiKeysPerUser: 2 } as AuthConfig;

/** Every repository method a stub. */
function fakeRepository() {
  return {
    countActiveOfUser: jest.fn<ApiKeysRepository['countActiveOfUser']>(),
    insert: jest.fn<ApiKeysRepository['insert']>(),
    findPageOfUser: jest.fn<ApiKeysRepository['findPageOfUser']>(),
    deleteOwned: jest.fn<ApiKeysRepository['deleteOwned']>(),
    endOwnedWithin: jest.fn<ApiKeysRepository['endOwnedWithin']>(),
    markExpiryWarned: jest.fn<ApiKeysRepository['markExpiryWarned']>(),
    deleteAllOfUser: jest.fn<ApiKeysRepository['deleteAllOfUser']>(),
    findByHash: jest.fn<ApiKeysRepository['findByHash']>(),
    touch: jest.fn<ApiKeysRepository['touch']>(),
  } satisfies Record<keyof ApiKeysRepository, unknown>;
}

function fakeUsers() {
  return {
    lockForUpdate: jest.fn<UserLookupService['lockForUpdate']>(),
  };
}

function credential(fields: Partial<ApiKeyCredentialRow> = {}): ApiKeyCredentialRow {
  return {
    id: 5,
    userId: 9,
    prefix: 'pk_test_abcd',
    scopes: null,
    expiresAt: null,
    expired: false,
    lastUsedAt: null,
    role: 'user',
    userStatus: UserStatus.Active,
    ...fields,
  };
}

describe(ApiKeysService.name, () => {
  let repository: ReturnType<typeof fakeRepository>;
  let users: ReturnType<typeof fakeUsers>;
  let txHost: ReturnType<typeof fakeTxHost>;
  let sut: ApiKeysService;

  beforeEach(() => {
    repository = fakeRepository();
    users = fakeUsers();
    txHost = fakeTxHost();
    sut = new ApiKeysService(
      repository as unknown as ApiKeysRepository,
      cfg,
      users as unknown as UserLookupService,
      txHost.asHost(),
      { publish: () => Promise.resolve() } as unknown as DomainEvents,
    );
  });

  describe('create', () => {
    it('should refuse a mode this deployment does not accept with 400, before any database work', async () => {
      const error = await refusal(sut.create(9, 'user', { name: 'ci', mode: 'test' }));

      expect(error.code).toBe('VALIDATION_ERROR');
      expect(error.details).toEqual({
        fields: [{ field: 'mode', message: 'must be one of: live' }],
      });
      expect(users.lockForUpdate).not.toHaveBeenCalled();
    });

    it('should lock the owner, count, and store only the key’s hash and display prefix, in one transaction', async () => {
      const events: string[] = [];
      const inTransaction = (event: string) =>
        events.push(txHost.active ? event : `${event} outside`);
      users.lockForUpdate.mockImplementation(() => {
        inTransaction('lock');
        return Promise.resolve(true);
      });
      repository.countActiveOfUser.mockImplementation(() => {
        inTransaction('count');
        return Promise.resolve(1);
      });
      repository.insert.mockImplementation((fields) => {
        inTransaction('insert');
        return Promise.resolve({ id: 1, ...fields } as ApiKey);
      });

      const created = await sut.create(9, 'user', { name: 'ci', mode: 'live' });

      expect(events).toEqual(['lock', 'count', 'insert']);
      expect(users.lockForUpdate).toHaveBeenCalledWith(9);
      expect(repository.insert).toHaveBeenCalledWith({
        userId: 9,
        name: 'ci',
        mode: 'live',
        scopes: null,
        prefix: created.key.slice(0, 12),
        keyHash: hashApiKey(created.key),
        expiresAt: null,
      });
    });

    it('should store the scopes asked for once each, in the order of the scope list', async () => {
      users.lockForUpdate.mockResolvedValue(true);
      repository.countActiveOfUser.mockResolvedValue(0);
      repository.insert.mockImplementation((fields) =>
        Promise.resolve({ id: 1, ...fields } as ApiKey),
      );

      await sut.create(9, 'user', {
        name: 'ci',
        mode: 'live',
        scopes: ['pets:write', 'pets:read', 'pets:write'],
      });

      expect(repository.insert).toHaveBeenCalledWith(
        expect.objectContaining({ scopes: ['pets:read', 'pets:write'] }),
      );
    });

    it('should refuse a scope the owner’s role does not allow with 400 on scopes, before any database work', async () => {
      const error = await refusal(
        sut.create(9, 'customer', {
          name: 'ci',
          mode: 'live',
          scopes: ['pets:read', 'pets:write'],
        }),
      );

      expect(error.code).toBe('VALIDATION_ERROR');
      expect(error.details).toEqual({
        fields: [{ field: 'scopes', message: 'the role customer does not allow pets:write' }],
      });
      expect(users.lockForUpdate).not.toHaveBeenCalled();
    });

    it('should answer 409 API_KEY_LIMIT_REACHED with the limit when the user holds the maximum', async () => {
      users.lockForUpdate.mockResolvedValue(true);
      repository.countActiveOfUser.mockResolvedValue(2);

      const error = await refusal(sut.create(9, 'user', { name: 'ci', mode: 'live' }));

      expect(error.getStatus()).toBe(409);
      expect(error.code).toBe('API_KEY_LIMIT_REACHED');
      expect(error.details).toEqual({ limit: 2 });
      expect(repository.insert).not.toHaveBeenCalled();
    });

    it('should answer 401 INVALID_TOKEN when the owner no longer exists', async () => {
      users.lockForUpdate.mockResolvedValue(false);

      const error = await refusal(sut.create(9, 'user', { name: 'ci', mode: 'live' }));

      expect(error.code).toBe('INVALID_TOKEN');
      expect(repository.insert).not.toHaveBeenCalled();
    });
  });

  describe('revoke', () => {
    it('should answer 404 API_KEY_NOT_FOUND when the user holds no such key', async () => {
      repository.deleteOwned.mockResolvedValue(null);

      const error = await refusal(sut.revoke(9, 5));

      expect(error.code).toBe('API_KEY_NOT_FOUND');
      expect(repository.deleteOwned).toHaveBeenCalledWith(9, 5);
    });
  });

  describe('revokeKeysOnPasswordChange', () => {
    const userUpdated = (fields: UserUpdated['fields']): UserUpdated => ({
      type: 'user.updated',
      subject: 'user:9',
      userId: 9,
      fields,
      origin: 'edit',
      before: userSnapshot(9),
      after: userSnapshot(9),
    });

    it('should revoke the user’s keys when the update wrote a new password', async () => {
      repository.deleteAllOfUser.mockResolvedValue([]);

      await sut.revokeKeysOnPasswordChange(userUpdated(['passwordHash', 'tokensValidAfter']));

      expect(repository.deleteAllOfUser).toHaveBeenCalledWith(9);
    });

    it.each([
      ['other fields', ['email', 'firstName']],
      ['a status that cut off the tokens', ['userStatus', 'tokensValidAfter']],
    ] as const)('should keep the user’s keys when the update wrote %s', async (_label, fields) => {
      await sut.revokeKeysOnPasswordChange(userUpdated([...fields]));

      expect(repository.deleteAllOfUser).not.toHaveBeenCalled();
    });
  });

  describe('authenticate', () => {
    it.each([
      ['a malformed key', 'pk_live_nonsense'],
      ['a key of a mode not accepted here', generateApiKey('test')],
    ])('should refuse %s without asking the database', async (_label, key) => {
      const error = await refusal(sut.authenticate(key));

      expect(error.code).toBe('INVALID_API_KEY');
      expect(repository.findByHash).not.toHaveBeenCalled();
    });

    it('should look the key up by its hash and act as its owner with the owner’s role', async () => {
      const key = generateApiKey('live');
      repository.findByHash.mockResolvedValue(credential({ role: 'admin' }));
      repository.touch.mockResolvedValue();

      const principal = await sut.authenticate(key);

      expect(repository.findByHash).toHaveBeenCalledWith(hashApiKey(key));
      expect(principal).toEqual({
        kind: 'api-key',
        userId: 9,
        role: 'admin',
        apiKeyId: 5,
        apiKeyPrefix: 'pk_test_abcd',
        apiKeyScopes: [...API_KEY_SCOPES],
      });
    });

    it('should give a key the scopes it was made with that its owner’s role allows now', async () => {
      repository.findByHash.mockResolvedValue(
        credential({ role: 'customer', scopes: ['pets:read', 'pets:write', 'audit:read'] }),
      );
      repository.touch.mockResolvedValue();

      const principal = await sut.authenticate(generateApiKey('live'));

      expect(principal.apiKeyScopes).toEqual(['pets:read']);
    });

    it.each([
      ['an unknown key', undefined],
      ['a disabled owner’s key', credential({ userStatus: UserStatus.Disabled })],
    ])('should refuse %s with 401 INVALID_API_KEY', async (_label, row) => {
      repository.findByHash.mockResolvedValue(row);

      const error = await refusal(sut.authenticate(generateApiKey('live')));

      expect(error.code).toBe('INVALID_API_KEY');
      expect(repository.touch).not.toHaveBeenCalled();
    });

    it('should refuse an expired key with 401 INVALID_API_KEY saying when it expired, unrecorded', async () => {
      const expiresAt = new Date('2026-12-01T10:00:00.000Z');
      repository.findByHash.mockResolvedValue(credential({ expiresAt, expired: true }));

      const error = await refusal(sut.authenticate(generateApiKey('live')));

      expect(error.code).toBe('INVALID_API_KEY');
      expect(error.details).toEqual({ reason: 'expired', expiredAt: '2026-12-01T10:00:00.000Z' });
      expect(repository.touch).not.toHaveBeenCalled();
    });

    it('should record a use only when none was recorded within the last minute', async () => {
      repository.touch.mockResolvedValue();
      repository.findByHash.mockResolvedValue(credential({ lastUsedAt: new Date() }));
      await sut.authenticate(generateApiKey('live'));
      expect(repository.touch).not.toHaveBeenCalled();

      repository.findByHash.mockResolvedValue(
        credential({ lastUsedAt: new Date(Date.now() - 61_000) }),
      );
      await sut.authenticate(generateApiKey('live'));
      await sut.beforeApplicationShutdown();
      expect(repository.touch).toHaveBeenCalledWith(5);
    });
  });
});
