import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import { IdempotencyKey } from './idempotency-key.entity.js';

/** One caller's key on one operation: the row's primary key. */
export interface IdempotencyScope {
  userId: number;
  /** The method and route template, e.g. `POST /v1/pets`. */
  operation: string;
  key: string;
}

/** A response as stored for replays. */
export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** A live key as found: its request's fingerprint, and its response once there is one. */
export interface IdempotencyRecord {
  fingerprint: string;
  response?: StoredResponse;
}

interface RecordRow {
  fingerprint: string;
  status: number | null;
  headers: Record<string, string> | null;
  body: unknown;
}

const SCOPE = `user_id = $1 AND operation = $2 AND key = $3`;
const scopeParams = ({ userId, operation, key }: IdempotencyScope) => [userId, operation, key];

/**
 * The `idempotency_keys` rows' only door to the database. Each method is one statement on
 * the pool, atomic on its own: the claim is what makes two instances agree.
 */
@Injectable()
export class IdempotencyRepository {
  private readonly keys: Repository<IdempotencyKey>;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    this.keys = dataSource.getRepository(IdempotencyKey);
  }

  /**
   * Claims the key for `token`: a new row, or one that may be taken over (expired, or still
   * running past its lease with the same request). True when this caller now holds it.
   * Of two concurrent claims, the second waits for the first's row and then finds it live.
   */
  async claim(
    scope: IdempotencyScope,
    fingerprint: string,
    token: string,
    leaseMs: number,
    retentionMs: number,
  ): Promise<boolean> {
    const rows = await this.dataSource.query<unknown[]>(
      `INSERT INTO idempotency_keys AS k
              (user_id, operation, key, fingerprint, token, locked_until, expires_at)
       VALUES ($1, $2, $3, $4, $5, now() + $6 * interval '1 millisecond',
               now() + $7 * interval '1 millisecond')
       ON CONFLICT (user_id, operation, key) DO UPDATE
          SET fingerprint = EXCLUDED.fingerprint, token = EXCLUDED.token,
              locked_until = EXCLUDED.locked_until, expires_at = EXCLUDED.expires_at,
              created_at = now(), response_status = NULL, response_headers = NULL,
              response_body = NULL
        WHERE k.expires_at <= now()
           OR (k.response_status IS NULL AND k.locked_until <= now()
               AND k.fingerprint = EXCLUDED.fingerprint)
       RETURNING 1`,
      [...scopeParams(scope), fingerprint, token, leaseMs, retentionMs],
    );
    return rows.length === 1;
  }

  /** The key unless it has expired (an expired row counts as gone, sweep or not). */
  async find(scope: IdempotencyScope): Promise<IdempotencyRecord | undefined> {
    const [row] = await this.dataSource.query<RecordRow[]>(
      `SELECT fingerprint, response_status AS status, response_headers AS headers,
              response_body AS body
         FROM idempotency_keys
        WHERE ${SCOPE} AND expires_at > now()`,
      scopeParams(scope),
    );
    if (!row) return undefined;
    const { fingerprint, status, headers, body } = row;
    return status === null
      ? { fingerprint }
      : { fingerprint, response: { status, headers: headers ?? {}, body } };
  }

  /** Stores the response of the claim `token` holds; false when it no longer holds it. */
  async complete(
    scope: IdempotencyScope,
    token: string,
    response: StoredResponse,
    retentionMs: number,
  ): Promise<boolean> {
    const [, affected] = await this.dataSource.query<[unknown, number]>(
      `UPDATE idempotency_keys
          SET response_status = $5, response_headers = $6::jsonb, response_body = $7::json,
              locked_until = NULL, expires_at = now() + $8 * interval '1 millisecond'
        WHERE ${SCOPE} AND token = $4`,
      [
        ...scopeParams(scope),
        token,
        response.status,
        JSON.stringify(response.headers),
        JSON.stringify(response.body),
        retentionMs,
      ],
    );
    return affected === 1;
  }

  /** Gives the key up, so that the next request with it runs; false when not held. */
  async release(scope: IdempotencyScope, token: string): Promise<boolean> {
    const [, affected] = await this.dataSource.query<[unknown, number]>(
      `DELETE FROM idempotency_keys WHERE ${SCOPE} AND token = $4`,
      [...scopeParams(scope), token],
    );
    return affected === 1;
  }

  /** Every expired row in one statement, over the index on `expires_at`; how many. */
  async deleteExpired(): Promise<number> {
    const result = await this.keys
      .createQueryBuilder()
      .delete()
      .where('expires_at <= now()')
      .execute();
    return result.affected ?? 0;
  }
}
