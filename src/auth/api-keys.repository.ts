import { Injectable } from '@nestjs/common';
import { InjectTransactionHost } from '@nestjs-cls/transactional';
import type { Repository } from 'typeorm';
import type { ApiKeyScope } from '../common/types/api-key-scope.js';
import type { Role } from '../common/types/principal.js';
import type { TxHost } from '../database/transactions.js';
import type { UserStatus } from '../users/user-status.js';
import { ApiKey } from './api-key.entity.js';

/** What a create records; the id and the creation time come from the database. */
export type NewApiKey = Pick<ApiKey, 'userId' | 'name' | 'mode' | 'scopes' | 'prefix' | 'keyHash'>;

/** What names a key, without its secret part: what its revocation says of it. */
export type ApiKeyLabel = Pick<ApiKey, 'id' | 'name' | 'mode' | 'prefix'>;

/** A key as authentication reads it: itself and what its owner may do now. */
export interface ApiKeyCredentialRow {
  id: number;
  userId: number;
  prefix: string;
  scopes: ApiKeyScope[] | null;
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

  countOfUser(userId: number): Promise<number> {
    return this.apiKeys.countBy({ userId });
  }

  insert(apiKey: NewApiKey): Promise<ApiKey> {
    return this.apiKeys.save(this.apiKeys.create({ ...apiKey, lastUsedAt: null }));
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
