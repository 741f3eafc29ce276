import { Injectable } from '@nestjs/common';
import { InjectTransactionHost } from '@nestjs-cls/transactional';
import { Repository, type FindOptionsWhere } from 'typeorm';
import type { TxHost } from '../database/transactions.js';
import { whereVersion } from '../database/where-version.js';
import type { UserSnapshot } from './user-events.js';
import { UserStatus } from './user-status.js';
import { User } from './user.entity.js';

/** The fields a write sets; the id and the timestamps come from the database. */
export type UserFields = Partial<Omit<User, 'id' | 'version' | 'createdAt' | 'updatedAt'>>;
export type NewUser = UserFields & Pick<User, 'username' | 'email' | 'passwordHash'>;

/** Which of an address's sign-ups awaiting verification holds it, when none has verified it. */
export type PendingHolder = 'oldest' | 'newest';

/** What a bearer token's check reads of its user. */
export type UserAccess = Pick<User, 'userStatus' | 'role' | 'tokensValidAfter'>;

/**
 * The users module's only door to the database. Every method joins the transaction in
 * progress, if any (see database/transactions.ts); without one it uses the pool. A username
 * or email taken in any case fails with the driver's unique violation, which the exception
 * filter answers (common/errors/constraint-errors.ts).
 */
@Injectable()
export class UsersRepository {
  constructor(@InjectTransactionHost() private readonly txHost: TxHost) {}

  private get users(): Repository<User> {
    return this.txHost.tx.getRepository(User);
  }

  /** Ordered by id. */
  async findPage(limit: number, offset: number): Promise<{ users: User[]; total: number }> {
    const [users, total] = await this.users.findAndCount({
      order: { id: 'ASC' },
      take: limit,
      skip: offset,
    });
    return { users, total };
  }

  /**
   * Up to `limit` active customers whose username starts with `prefix` or whose address is
   * `email` (both in any case), by username: the prefix read from
   * IDX_users_active_customer_username_prefix, the address from the unique one.
   */
  findActiveCustomers(
    prefix: string,
    email: string,
    limit: number,
  ): Promise<Pick<User, 'id' | 'username'>[]> {
    return this.txHost.tx.query(
      `SELECT id, username FROM users
        WHERE role = 'customer' AND user_status = 0
          AND (lower(username) LIKE $1 OR lower(email) = lower($2))
        ORDER BY lower(username)
        LIMIT $3`,
      [`${prefix.toLowerCase().replace(/[\\%_]/g, '\\$&')}%`, email, limit],
    );
  }

  findById(id: number): Promise<User | null> {
    return this.users.findOneBy({ id });
  }

  /** The user, its row locked until the transaction ends: what a change starts from. */
  findForUpdate(id: number): Promise<User | null> {
    return this.users.findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
  }

  /** Usernames are unique case-insensitively, so this finds at most one. */
  findByUsername(username: string): Promise<User | null> {
    return this.users
      .createQueryBuilder('user')
      .where('lower(user.username) = lower(:username)', { username })
      .getOne();
  }

  /**
   * The account that holds `email` (any case): the one whose address is verified, unique
   * among them; else the oldest (or `newest`) of the sign-ups awaiting its verification.
   */
  findByEmail(email: string, pending: PendingHolder = 'oldest'): Promise<User | null> {
    return (
      this.users
        .createQueryBuilder('user')
        .where('lower(user.email) = lower(:email)', { email })
        // Pending is the highest status: a verified account (active or disabled) comes first.
        .orderBy('user.userStatus', 'ASC')
        .addOrderBy('user.id', pending === 'oldest' ? 'ASC' : 'DESC')
        .getOne()
    );
  }

  /** The addresses of those of `ids` that still exist, by id. */
  async findEmails(ids: number[]): Promise<Map<number, string>> {
    const rows = await this.txHost.tx.query<{ id: number; email: string }[]>(
      'SELECT id, email FROM users WHERE id = ANY($1::int8[])',
      [ids],
    );
    return new Map(rows.map((row) => [row.id, row.email]));
  }

  findAccess(id: number): Promise<UserAccess | null> {
    return this.users.findOne({
      select: { id: true, userStatus: true, role: true, tokensValidAfter: true },
      where: { id },
    });
  }

  adminExists(): Promise<boolean> {
    return this.users.existsBy({ role: 'admin' });
  }

  insert(fields: NewUser): Promise<User> {
    return this.users.save(this.users.create(fields));
  }

  /**
   * An active admin, unless the username or email is taken (a concurrent insert included):
   * then nothing is written and the result is false.
   */
  async insertAdminUnlessTaken(
    username: string,
    email: string,
    passwordHash: string,
  ): Promise<boolean> {
    const inserted = await this.txHost.tx.query<unknown[]>(
      `INSERT INTO users (username, email, password_hash, role, user_status)
       VALUES ($1, $2, $3, 'admin', $4)
       ON CONFLICT DO NOTHING
       RETURNING id`,
      [username, email, passwordHash, UserStatus.Active],
    );
    return inserted.length > 0;
  }

  /**
   * Writes `changes` (fields left undefined are kept) in one statement. False when nothing
   * matched: no such user, or (with `versions`) its version is none of them.
   */
  async update(id: number, changes: UserFields, versions: number[] | undefined): Promise<boolean> {
    const result = await this.users.update(whereVersion(id, versions), changes);
    return Boolean(result.affected);
  }

  /** Writes `changes` to the user of `where` (its id and more); false when nothing matched. */
  async updateWhere(
    where: FindOptionsWhere<User> & { id: number },
    changes: UserFields,
  ): Promise<boolean> {
    const result = await this.users.update(where, changes);
    return Boolean(result.affected);
  }

  /** False when nothing matched, as for `update`. */
  async delete(id: number, versions?: number[]): Promise<boolean> {
    const result = await this.users.delete(whereVersion(id, versions));
    return Boolean(result.affected);
  }

  /**
   * Inside a transaction: up to `limit` sign-ups still unverified and pending more than
   * `olderThanSeconds` after their creation, locked until it ends, skipping the rows another
   * transaction holds (another instance's sweep, a verification in progress).
   */
  async lockUnverifiedSignUps(olderThanSeconds: number, limit: number): Promise<number[]> {
    const rows = await this.txHost.tx.query<{ id: number }[]>(
      `SELECT id FROM users
        WHERE unverified_sign_up AND user_status = $1
          AND created_at < now() - $2 * interval '1 second'
        ORDER BY created_at LIMIT $3 FOR UPDATE SKIP LOCKED`,
      [UserStatus.Pending, olderThanSeconds, limit],
    );
    return rows.map((row) => row.id);
  }

  /** Deletes the users `ids`; the users as they were. */
  async deleteAll(ids: number[]): Promise<UserSnapshot[]> {
    const [rows] = await this.txHost.tx.query<[UserSnapshot[], number]>(
      `DELETE FROM users WHERE id = ANY($1::int8[])
       RETURNING id, username, email, first_name AS "firstName", last_name AS "lastName", phone,
                 user_status AS "userStatus", role, pending_email AS "pendingEmail"`,
      [ids],
    );
    return rows;
  }

  /** Locks the user's row until the transaction ends; false when there is no such user. */
  async lock(id: number): Promise<boolean> {
    const rows = await this.txHost.tx.query<unknown[]>(
      'SELECT id FROM users WHERE id = $1 FOR UPDATE',
      [id],
    );
    return rows.length > 0;
  }
}
