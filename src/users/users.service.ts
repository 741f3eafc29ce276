import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { InjectTransactionHost } from '@nestjs-cls/transactional';
import {
  paginationOf,
  type Pagination,
  type LargePageQueryDto,
} from '../common/dto/pagination-query.dto.js';
import { ApiException } from '../common/errors/api-exception.js';
import type { RequestOrigin } from '../common/http/request-origin.js';
import {
  preconditionFailed,
  rowVersionsIn,
  rowVersionTag,
  type IfMatch,
} from '../common/http/conditional-requests.js';
import type { TxHost } from '../database/transactions.js';
import { LoginLockoutService } from '../rate-limit/login-lockout.service.js';
import type { CreateUserDto } from './dto/create-user.dto.js';
import type { UpdateUserDto } from './dto/update-user.dto.js';
import { PasswordService } from './password.service.js';
import { EMAIL_CHANGE_TTL_SECONDS } from './email-change.js';
import {
  awaitsVerification,
  canUseCredentials,
  cutsOffTokens,
  MAILED_LINK_MOVE,
  statusAfterMailedLink,
} from './user-lifecycle.js';
import { UserEventPublisher } from './user-event-publisher.js';
import type { UserOrigin, UserUpdateOrigin } from './user-events.js';
import { UserStatus } from './user-status.js';
import type { User } from './user.entity.js';
import {
  UsersRepository,
  type NewUser,
  type PendingHolder,
  type UserFields,
} from './users.repository.js';

/** What a person signing up gives, besides its password. */
export type RegistrationFields = Pick<
  CreateUserDto,
  'username' | 'email' | 'firstName' | 'lastName' | 'phone'
>;

export interface UpdateOptions {
  /**
   * The user changes its own email: the new one is kept pending until the link mailed to
   * it is used (confirmEmailChange), docs/identity.md "Mailed tokens and account flows".
   */
  emailByMail?: boolean;
}

export interface UserPage {
  users: User[];
  pagination: Pagination;
}

/** Customers one search answers, at most: a picker's list, never a way to page through them. */
export const CUSTOMER_MATCHES = 10;

/** Also ParseIdPipe's answer on the user routes, for ids that cannot exist. */
export const userNotFound = (id: number | string) =>
  new ApiException('USER_NOT_FOUND', `User ${id} not found`);

@Injectable()
export class UsersService {
  private readonly logger = new Logger('Users');

  constructor(
    private readonly users: UsersRepository,
    private readonly passwords: PasswordService,
    private readonly lockout: LoginLockoutService,
    private readonly events: UserEventPublisher,
    @InjectTransactionHost() private readonly txHost: TxHost,
  ) {}

  async list(query: LargePageQueryDto): Promise<UserPage> {
    const offset = query.offset ?? 0;
    const { users, total } = await this.users.findPage(query.limit, offset);
    return { users, pagination: paginationOf(query.limit, offset, users.length, total) };
  }

  /**
   * The active customers whose username starts with `q`, or whose address is `q` (any case),
   * by username: whom staff may request an adoption for (docs/api-decisions.md, Adoptions).
   */
  findCustomers(q: string): Promise<Pick<User, 'id' | 'username'>[]> {
    return this.users.findActiveCustomers(q, q, CUSTOMER_MATCHES);
  }

  async findOne(id: number): Promise<User> {
    const user = await this.users.findById(id);
    if (!user) throw userNotFound(id);
    return user;
  }

  findByUsername(username: string): Promise<User | null> {
    return this.users.findByUsername(username);
  }

  /** The account that holds `email`: see UsersRepository.findByEmail. */
  findByEmail(email: string, pending?: PendingHolder): Promise<User | null> {
    return this.users.findByEmail(email, pending);
  }

  /**
   * An admin's POST /users. An invited account waits, pending, for the password its owner
   * chooses through the mailed link; until then its hash is of a password no one knows.
   */
  async create(dto: CreateUserDto): Promise<User> {
    const { password, invite, ...fields } = dto;
    const passwordHash = await this.passwords.hashPassword(password ?? randomUUID());
    if (!invite) return this.insert({ ...fields, passwordHash }, 'admin');
    // A pending account is outside the email's unique index: an admin is told here instead.
    const holder = await this.users.findByEmail(fields.email);
    if (holder && !awaitsVerification(holder.userStatus)) throw ApiException.taken('email');
    return this.insert({ ...fields, passwordHash, userStatus: UserStatus.Pending }, 'invitation');
  }

  /** A signed-up account: a customer, pending until its address is verified. */
  register(fields: RegistrationFields, passwordHash: string): Promise<User> {
    return this.insert(
      {
        ...fields,
        passwordHash,
        role: 'customer',
        userStatus: UserStatus.Pending,
        unverifiedSignUp: true,
      },
      'registration',
    );
  }

  /**
   * A person's first sign-in through the OpenID Connect provider, which verified `email`: an
   * active customer, whose password no one knows (it may set one by a reset). Its username
   * is `preferred`, cleaned, or that with a random suffix when taken.
   */
  async registerFromProvider(
    fields: Pick<RegistrationFields, 'email' | 'firstName' | 'lastName'>,
    preferred: string,
  ): Promise<User> {
    const passwordHash = await this.passwords.hashPassword(randomUUID());
    return this.insert(
      {
        ...fields,
        username: await this.freeUsername(preferred),
        passwordHash,
        role: 'customer',
        userStatus: UserStatus.Active,
      },
      'sso',
    );
  }

  private async freeUsername(preferred: string): Promise<string> {
    const base = preferred
      .replace(/[^A-Za-z0-9_.-]/g, '')
      .slice(0, 24)
      .padEnd(3, '_');
    if (!(await this.users.findByUsername(base))) return base;
    // A taken one gets a random suffix; a concurrent sign-in taking it too answers 409.
    return `${base}-${randomUUID().slice(0, 6)}`;
  }

  private insert(fields: NewUser, origin: UserOrigin): Promise<User> {
    return this.txHost.withTransaction(async () => {
      const user = await this.users.insert(fields);
      await this.events.created(user, origin);
      return user;
    });
  }

  /**
   * A verified address: a pending account becomes active (MAILED_LINK_MOVE); any other
   * status stays as it is. 409 CONFLICT when another account has verified the address
   * since the sign-up.
   */
  async verifyEmail(id: number): Promise<void> {
    await this.write(id, { userStatus: MAILED_LINK_MOVE.to }, 'email-verified', {
      userStatus: MAILED_LINK_MOVE.from,
    });
  }

  /**
   * A password set through a mailed link: like a password change, it cuts off every token
   * issued until now (the user.updated handlers revoke sessions and API keys), and it
   * verifies a pending address, since the link reached it.
   */
  async setPasswordByMail(id: number, passwordHash: string): Promise<void> {
    await this.txHost.withTransaction(async () => {
      const user = await this.findOne(id);
      const changes: UserFields = { passwordHash, tokensValidAfter: new Date() };
      const status = statusAfterMailedLink(user.userStatus);
      if (status !== user.userStatus) changes.userStatus = status;
      // Activating it verifies its address: 409 if another account holds it meanwhile.
      await this.write(id, changes, 'password-set');
    });
  }

  /**
   * Applies the pending email change to `email`, if it is still the one pending; false
   * otherwise. 409 CONFLICT when another account has taken the address since.
   */
  async confirmEmailChange(id: number, email: string): Promise<boolean> {
    return this.write(
      id,
      { email, pendingEmail: null, pendingEmailExpiresAt: null },
      'email-verified',
      { pendingEmail: email },
    );
  }

  /**
   * A mailed link's change: written and published as user.updated in one transaction; false
   * when `where` matched nothing.
   */
  private async write(
    id: number,
    changes: UserFields,
    origin: Exclude<UserUpdateOrigin, 'edit'>,
    where: { userStatus?: UserStatus; pendingEmail?: string } = {},
  ): Promise<boolean> {
    return this.txHost.withTransaction(async () => {
      const before = await this.users.findForUpdate(id);
      const activated = withActivation(changes);
      if (!before || !(await this.users.updateWhere({ ...where, id }, activated))) return false;
      await this.events.updated(before, { ...before, ...activated }, activated, origin);
      return true;
    });
  }

  /**
   * A password change, and any status other than active, cut off every bearer token issued
   * until now (`tokensValidAfter`), so that re-enabling an account does not revive them.
   * With `currentPassword` (user-access.ts decides when it is sent), only if it is the
   * user's password (403 otherwise). With `ifMatch`, only if the user's version is one of it
   * (412 otherwise).
   */
  async update(
    id: number,
    dto: UpdateUserDto,
    ifMatch?: IfMatch,
    { emailByMail = false }: UpdateOptions = {},
  ): Promise<User> {
    const { password, currentPassword, email, ...fields } = dto;
    if (currentPassword !== undefined) await this.confirmPassword(id, currentPassword);
    const passwordHash =
      password === undefined ? undefined : await this.passwords.hashPassword(password);
    const changes: UserFields = { ...fields };
    if (email !== undefined) {
      Object.assign(changes, emailByMail ? await this.emailChangeTo(id, email) : { email });
    }
    const deactivated = fields.userStatus !== undefined && cutsOffTokens(fields.userStatus);
    if (passwordHash !== undefined) changes.passwordHash = passwordHash;
    if (passwordHash !== undefined || deactivated) changes.tokensValidAfter = new Date();
    const activated = withActivation(changes);
    return this.txHost.withTransaction(async () => {
      const before = await this.users.findForUpdate(id);
      if (!before) throw userNotFound(id);
      const updated = await this.users.update(id, activated, rowVersionsIn(ifMatch));
      const user = await this.users.findById(id);
      if (!user) throw userNotFound(id);
      if (!updated) throw preconditionFailed(rowVersionTag(user));
      await this.events.updated(before, user, activated, 'edit');
      return user;
    });
  }

  /**
   * The new address waits for its link (the auth module mails it on user.updated); the
   * current one again cancels a pending change.
   */
  private async emailChangeTo(id: number, email: string): Promise<UserFields> {
    const user = await this.findOne(id);
    if (user.email.toLowerCase() === email.toLowerCase()) {
      return { pendingEmail: null, pendingEmailExpiresAt: null };
    }
    return {
      pendingEmail: email,
      pendingEmailExpiresAt: new Date(Date.now() + EMAIL_CHANGE_TTL_SECONDS * 1000),
    };
  }

  /**
   * 403 INVALID_CURRENT_PASSWORD unless `password` is the user's. Judged as a login is: a
   * wrong one counts toward the lockout of the username, and while it is locked the right
   * one is refused alike, so that this route is no way around the lock.
   */
  private async confirmPassword(id: number, password: string): Promise<void> {
    const user = await this.findOne(id);
    const [locked, valid] = await Promise.all([
      this.lockout.isLocked(user.username),
      this.passwords.verifyPassword(user.passwordHash, password),
    ]);
    if (locked || !valid) {
      await this.lockout.recordFailure(user.username);
      throw new ApiException('INVALID_CURRENT_PASSWORD', 'currentPassword is not your password');
    }
  }

  /**
   * Its API keys go with it (foreign key ON DELETE CASCADE); user.deleting is published
   * before the delete, for the rows that refer to it (adoptions), and user.deleted after it,
   * in the same transaction. With `ifMatch`, only if the user's version is one of it (412
   * otherwise).
   */
  async remove(id: number, ifMatch?: IfMatch): Promise<void> {
    await this.txHost.withTransaction(async () => {
      const before = await this.users.findForUpdate(id);
      if (!before) throw userNotFound(id);
      await this.events.deleting(id);
      if (!(await this.users.delete(id, rowVersionsIn(ifMatch)))) {
        throw preconditionFailed(rowVersionTag(before));
      }
      await this.events.deleted(before);
    });
  }

  /**
   * Deletes up to `limit` sign-ups left unverified for `ttlSeconds`, each published as
   * user.deleting and user.deleted in one transaction, as `remove` does (its tokens and
   * sessions go with it, by the foreign keys); how many. Safe on several instances at once:
   * each row is locked, and deleted, once.
   */
  async removeUnverifiedSignUps(ttlSeconds: number, limit: number): Promise<number> {
    const removed = await this.txHost.withTransaction(async () => {
      const ids = await this.users.lockUnverifiedSignUps(ttlSeconds, limit);
      if (ids.length === 0) return [];
      for (const id of ids) await this.events.deleting(id);
      const users = await this.users.deleteAll(ids);
      for (const before of users) {
        await this.events.deleted(before);
      }
      return users;
    });
    return removed.length;
  }

  /**
   * A reset link may be mailed to user `id`, as `request` asked: published for the audit
   * log, in the caller's transaction.
   */
  passwordResetRequested(id: number, request: RequestOrigin): Promise<void> {
    return this.events.passwordResetRequested(id, request);
  }

  adminExists(): Promise<boolean> {
    return this.users.adminExists();
  }

  /**
   * Creates the first admin when there is none. Safe when several instances start at
   * once: the insert does nothing if another one has just taken the username.
   * Returns whether this call created it.
   */
  async ensureAdmin(username: string, email: string, password: string): Promise<boolean> {
    if (await this.adminExists()) return false;
    const passwordHash = await this.passwords.hashPassword(password);
    if (await this.users.insertAdminUnlessTaken(username, email, passwordHash)) return true;
    if (!(await this.adminExists())) {
      this.logger.warn(
        `No admin exists and the username or email of ${username} is taken by another user; ` +
          'create an admin with `npm run cli -- create-admin`',
      );
    }
    return false;
  }
}

/** An account made active is no unverified sign-up any more: the expiry leaves it for good. */
const withActivation = (changes: UserFields): UserFields =>
  changes.userStatus !== undefined && canUseCredentials(changes.userStatus)
    ? { ...changes, unverifiedSignUp: false }
    : changes;
