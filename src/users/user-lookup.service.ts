import { Injectable } from '@nestjs/common';
import { PasswordService } from './password.service.js';
import type { User } from './user.entity.js';
import { UsersService } from './users.service.js';
import { UsersRepository, type UserAccess } from './users.repository.js';

/** What a bearer token's check needs to know about its user. */
export type AccessState = UserAccess;

/**
 * What the users module tells other modules: reads of the user row, for the modules that
 * turn credentials into callers (auth), the addresses of accounts' mails, and the password
 * check; nothing that changes a user.
 */
@Injectable()
export class UserLookupService {
  constructor(
    private readonly users: UsersService,
    private readonly rows: UsersRepository,
    private readonly passwords: PasswordService,
  ) {}

  /** 404 USER_NOT_FOUND when there is none. */
  findOne(id: number): Promise<User> {
    return this.users.findOne(id);
  }

  findByUsername(username: string): Promise<User | null> {
    return this.users.findByUsername(username);
  }

  /**
   * Verifies against the user's hash, or, with none (no such user), against a dummy hash,
   * so that both take about the same time.
   */
  verifyPassword(stored: string | undefined, password: string): Promise<boolean> {
    return this.passwords.verifyPassword(stored, password);
  }

  /**
   * Locks the user's row until the current transaction ends, so that work counted per user
   * (such as its API keys) is serialised. False when the user does not exist.
   */
  lockForUpdate(userId: number): Promise<boolean> {
    return this.rows.lock(userId);
  }

  /** Where each of the users' mail goes, by id; the deleted are left out. */
  emailsOf(userIds: number[]): Promise<Map<number, string>> {
    return this.rows.findEmails(userIds);
  }

  /** Status, role and token cut-off of a token's user, read now; null when deleted. */
  async accessStateOf(userId: number): Promise<AccessState | null> {
    const user = await this.rows.findAccess(userId);
    return user
      ? { userStatus: user.userStatus, role: user.role, tokensValidAfter: user.tokensValidAfter }
      : null;
  }
}
