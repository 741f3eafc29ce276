import { describe, expect, it } from '@jest/globals';
import type { ApiException } from '../common/errors/api-exception.js';
import type { Principal } from '../common/types/principal.js';
import {
  assertCanCreateUser,
  assertCanDeleteUser,
  assertCanReadUser,
  assertCanUpdateUser,
} from './user-access.js';

const admin: Principal = { kind: 'user', userId: 1, role: 'admin' };
const user: Principal = { kind: 'user', userId: 2, role: 'user' };
const adminKey: Principal = { kind: 'api-key', userId: 1, role: 'admin', apiKeyId: 8 };
const userKey: Principal = { kind: 'api-key', userId: 2, role: 'user', apiKeyId: 7 };

function codeOf(act: () => void): string | undefined {
  try {
    act();
    return undefined;
  } catch (error) {
    return (error as ApiException).code;
  }
}

describe('user-access', () => {
  describe(assertCanReadUser.name, () => {
    it('should let an admin read anyone and a user only itself', () => {
      expect(codeOf(() => assertCanReadUser(admin, 2))).toBeUndefined();
      expect(codeOf(() => assertCanReadUser(user, 2))).toBeUndefined();
      expect(codeOf(() => assertCanReadUser(userKey, 2))).toBeUndefined();
      expect(codeOf(() => assertCanReadUser(user, 1))).toBe('INSUFFICIENT_PERMISSIONS');
    });
  });

  describe(assertCanCreateUser.name, () => {
    const fields = { username: 'new', email: 'new@example.com', password: 'p4ssw0rd!' };

    it('should refuse an API key setting a role, even an admin key', () => {
      expect(codeOf(() => assertCanCreateUser(adminKey, { ...fields, role: 'user' }))).toBe(
        'INSUFFICIENT_PERMISSIONS',
      );
      expect(codeOf(() => assertCanCreateUser(adminKey, fields))).toBeUndefined();
      expect(
        codeOf(() => assertCanCreateUser(admin, { ...fields, role: 'admin' })),
      ).toBeUndefined();
    });
  });

  describe(assertCanUpdateUser.name, () => {
    it.each([{ role: 'admin' as const }, { userStatus: 0 as const }])(
      'should refuse an admin key sending %j',
      (dto) => {
        expect(codeOf(() => assertCanUpdateUser(adminKey, 2, dto))).toBe(
          'INSUFFICIENT_PERMISSIONS',
        );
      },
    );

    it('should let a user change its own profile, and its password with currentPassword', () => {
      expect(codeOf(() => assertCanUpdateUser(user, 2, { firstName: 'A' }))).toBeUndefined();
      expect(
        codeOf(() =>
          assertCanUpdateUser(user, 2, {
            firstName: 'A',
            password: 'p4ssw0rd!',
            currentPassword: 'old one',
          }),
        ),
      ).toBeUndefined();
    });

    it.each([{ password: 'p4ssw0rd!' }, { email: 'new@example.com' }, { username: 'new' }])(
      'should ask anyone changing its own %j for currentPassword, an admin too',
      (dto) => {
        expect(codeOf(() => assertCanUpdateUser(user, 2, dto))).toBe('VALIDATION_ERROR');
        expect(codeOf(() => assertCanUpdateUser(admin, 1, dto))).toBe('VALIDATION_ERROR');
        expect(codeOf(() => assertCanUpdateUser(admin, 2, dto))).toBeUndefined();
      },
    );

    it('should refuse currentPassword where no change asks for it', () => {
      for (const [principal, id, dto] of [
        [user, 2, { firstName: 'A' }],
        [admin, 2, { password: 'p4ssw0rd!' }],
        [admin, 1, { phone: '1' }],
      ] as const) {
        expect(
          codeOf(() => assertCanUpdateUser(principal, id, { ...dto, currentPassword: 'x' })),
        ).toBe('VALIDATION_ERROR');
      }
    });

    it('should refuse a user updating someone else', () => {
      expect(codeOf(() => assertCanUpdateUser(user, 1, { firstName: 'A' }))).toBe(
        'INSUFFICIENT_PERMISSIONS',
      );
    });

    it.each([{ role: 'admin' as const }, { role: 'user' as const }, { userStatus: 0 as const }])(
      'should refuse a non-admin sending %j',
      (dto) => {
        expect(codeOf(() => assertCanUpdateUser(user, 2, dto))).toBe('INSUFFICIENT_PERMISSIONS');
      },
    );

    it('should refuse a password change through an API key', () => {
      expect(
        codeOf(() =>
          assertCanUpdateUser(userKey, 2, { password: 'p4ssw0rd!', currentPassword: 'old one' }),
        ),
      ).toBe('INSUFFICIENT_PERMISSIONS');
      expect(codeOf(() => assertCanUpdateUser(userKey, 2, { phone: '1' }))).toBeUndefined();
    });

    it('should let an admin change role and status of others', () => {
      expect(
        codeOf(() => assertCanUpdateUser(admin, 2, { role: 'admin', userStatus: 1 })),
      ).toBeUndefined();
    });

    it('should refuse an admin demoting or deactivating itself', () => {
      expect(codeOf(() => assertCanUpdateUser(admin, 1, { role: 'user' }))).toBe('CONFLICT');
      expect(codeOf(() => assertCanUpdateUser(admin, 1, { userStatus: 1 }))).toBe('CONFLICT');
      expect(
        codeOf(() => assertCanUpdateUser(admin, 1, { role: 'admin', userStatus: 0 })),
      ).toBeUndefined();
    });
  });

  describe(assertCanDeleteUser.name, () => {
    it('should refuse an admin deleting itself and allow deleting others', () => {
      expect(codeOf(() => assertCanDeleteUser(admin, 1))).toBe('CONFLICT');
      expect(codeOf(() => assertCanDeleteUser(admin, 2))).toBeUndefined();
    });
  });
});
