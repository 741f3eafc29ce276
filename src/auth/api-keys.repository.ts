import { Injectable } from '@nestjs/common';
import { InjectTransactionHost } from '@nestjs-cls/transactional';
import type { Repository } from 'typeorm';
import type { ApiKeyScope } from '../common/types/api-key-scope.js';
import type { Role } from '../common/types/principal.js';
import type { TxHost } from '../database/transactions.js';
import type { UserStatus } from '../users/user-status.js';
import { ApiKey } from './api-key.entity.js';

/** What a create records; the id and the creation time come from the database. */
export type NewApiKey = Pick<
  ApiKey,
  'userId' | 'name' | 'mode' | 'scopes' | 'prefix' | 'keyHash' | 'expiresAt'
>;

/** What names a key, without its secret part: what its revocation says of it. */
export type ApiKeyLabel = Pick<ApiKey, 'id' | 'name' | 'mode' | 'prefix'>;

/** A key being rolled, its end brought forward: what its successor copies. */
export type RolledApiKey = Pick<
  ApiKey,
  'id' | 'name' | 'mode' | 'prefix' | 'scopes' | 'createdAt'
> & {
  /** Its end before the roll; null when it had none. */
  previousExpiresAt: Date | null;
};

/** A key whose owner is to be told that it ends soon, and the owner's name. */
export type ExpiringApiKey = Pick<ApiKey, 'id' | 'userId' | 'name' | 'prefix'> & {
  expiresAt: Date;
  username: string;
};

/** A key as authentication reads it: itself and what its owner may do now. */
export interface ApiKeyCredentialRow {
  id: number;
  userId: number;
  prefix: string;
  scopes: ApiKeyScope[] | null;
  expiresAt: Date | null;
  /** Past `expiresAt` by the database's clock, which every instance shares. */
  expired: boolean;
  lastUsedAt: Date | null;
  role: Role;
  userStatus: UserStatus;
}

/**
 * The API keys' only door to the database: the `api_keys` rows. Every method joins the
 * transaction in progress, if any (see database/transactions.ts).
 */
@Injectable()
export class ApiKeysRepository {
  constructor(@InjectTransactionHost() private readonly txHost: TxHost) {}

  private get apiKeys(): Repository<ApiKey> {
    return this.txHost.tx.getRepository(ApiKey);
  }

  /** The user's keys that still work: an expired key takes no place. */
  async countActiveOfUser(userId: number): Promise<number> {
    const [{ count }] = await this.txHost.tx.query<{ count: number }[]>(
      `SELECT count(*)::int AS count FROM api_keys
        WHERE user_id = $1 AND (expires_at IS NULL OR expires_at > now())`,
      [userId],
    );
    return count;
  }

  insert(apiKey: NewApiKey): Promise<ApiKey> {
    return this.apiKeys.save(
      this.apiKeys.create({ ...apiKey, expiryWarnedAt: null, lastUsedAt: null }),
    );
  }

  /** Newest first. */
  async findPageOfUser(
    userId: number,
    limit: number,
    offset: number,
  ): Promise<{ apiKeys: ApiKey[]; total: number }> {
    const [apiKeys, total] = await this.apiKeys.findAndCount({
      where: { userId },
      order: { createdAt: 'DESC', id: 'DESC' },
      take: limit,
      skip: offset,
    });
    return { apiKeys, total };
  }

  /** The key deleted, null when the user holds none of this id. */
  async deleteOwned(userId: number, id: number): Promise<ApiKeyLabel | null> {
    const [rows] = await this.txHost.tx.query<[ApiKeyLabel[], number]>(
      `DELETE FROM api_keys WHERE id = $1 AND user_id = $2 RETURNING id, name, mode, prefix`,
      [id, userId],
    );
    return rows[0] ?? null;
  }

  /**
   * Brings the user's key's end forward to `hours` from now (never later than it was); null
   * when the user holds no key of this id. The row stays locked until the transaction ends.
   * The roll tells the owner of the old key's end: it is never warned of it afterwards.
   */
  async endOwnedWithin(userId: number, id: number, hours: number): Promise<RolledApiKey | null> {
    const [rows] = await this.txHost.tx.query<[RolledApiKey[], number]>(
      `WITH old AS (
         SELECT id, expires_at FROM api_keys WHERE id = $1 AND user_id = $2 FOR UPDATE
       )
       UPDATE api_keys k
          SET expires_at = LEAST(COALESCE(old.expires_at, 'infinity'),
                                 date_trunc('milliseconds', now()) + make_interval(hours => $3::int)),
              expiry_warned_at = COALESCE(k.expiry_warned_at, now())
         FROM old WHERE k.id = old.id
       RETURNING k.id, k.name, k.mode, k.prefix, k.scopes, k.created_at AS "createdAt",
                 old.expires_at AS "previousExpiresAt"`,
      [id, userId, hours],
    );
    return rows[0] ?? null;
  }

  /**
   * Marks up to `limit` keys that end within `days` and were not yet warned (soonest end first)
   * as warned now, and answers them with their owner's name. Rows another transaction holds
   * are skipped, so that concurrent runs never answer a key twice.
   */
  async markExpiryWarned(days: number, limit: number): Promise<ExpiringApiKey[]> {
    const [rows] = await this.txHost.tx.query<[ExpiringApiKey[], number]>(
      `WITH due AS (
         SELECT id FROM api_keys
          WHERE expiry_warned_at IS NULL AND expires_at IS NOT NULL
            AND expires_at > now() AND expires_at <= now() + make_interval(days => $1::int)
          ORDER BY expires_at, id LIMIT $2 FOR UPDATE SKIP LOCKED
       )
       UPDATE api_keys k SET expiry_warned_at = now()
         FROM due, users u
        WHERE k.id = due.id AND u.id = k.user_id
       RETURNING k.id, k.user_id AS "userId", k.name, k.prefix, k.expires_at AS "expiresAt",
                 u.username`,
      [days, limit],
    );
    return rows;
  }

  /** The keys deleted, as they were. */
  async deleteAllOfUser(userId: number): Promise<ApiKeyLabel[]> {
    const [rows] = await this.txHost.tx.query<[ApiKeyLabel[], number]>(
      `DELETE FROM api_keys WHERE user_id = $1 RETURNING id, name, mode, prefix`,
      [userId],
    );
    return rows;
  }

  /**
   * Runs on every request that presents a key, so one statement over the unique index on
   * `key_hash`, joined to the owner, returning a row rather than an entity.
   */
  async findByHash(keyHash: string): Promise<ApiKeyCredentialRow | undefined> {
    const [row] = await this.txHost.tx.query<ApiKeyCredentialRow[]>(
      `SELECT k.id, k.user_id AS "userId", k.prefix, k.scopes, k.last_used_at AS "lastUsedAt",
              k.expires_at AS "expiresAt", coalesce(k.expires_at <= now(), false) AS expired,
              u.role, u.user_status AS "userStatus"
         FROM api_keys k JOIN users u ON u.id = k.user_id
        WHERE k.key_hash = $1`,
      [keyHash],
    );
    return row;
  }

  /** Records a use now, unless one was recorded within the last minute. */
  async touch(id: number): Promise<void> {
    // The condition is re-checked on the row, so concurrent requests with one key write once.
    await this.txHost.tx.query(
      `UPDATE api_keys SET last_used_at = now()
        WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
      [id],
    );
  }
}
