import { Injectable } from '@nestjs/common';
import { InjectTransactionHost } from '@nestjs-cls/transactional';
import type { TxHost } from '../../database/transactions.js';

/** What a login records; the times come from the database's clock. */
export interface NewSession {
  userId: number;
  tokenHash: string;
  ttlSeconds: number;
  userAgent: string | null;
  ip: string | null;
}

/** A session as its owner's list shows it. */
/** A session a logout ended, and whose it was. */
export interface RevokedSession {
  id: number;
  userId: number;
}

export interface SessionRow {
  id: number;
  createdAt: Date;
  lastUsedAt: Date;
  userAgent: string | null;
  ip: string | null;
}

/**
 * The sessions' only door to the database: the `sessions` and `spent_refresh_tokens` rows.
 * Every method joins the transaction in progress, if any (see database/transactions.ts).
 * Times are the database's, so that instances with skewed clocks agree on expiry. TypeORM
 * answers an UPDATE as `[rows, count]`.
 */
@Injectable()
export class SessionsRepository {
  constructor(@InjectTransactionHost() private readonly txHost: TxHost) {}

  async insert(session: NewSession): Promise<number> {
    const [row] = await this.txHost.tx.query<{ id: number }[]>(
      `INSERT INTO sessions (user_id, token_hash, last_used_at, expires_at, user_agent, ip)
       VALUES ($1, $2, now(), now() + $3 * interval '1 second', $4, $5)
       RETURNING id`,
      [session.userId, session.tokenHash, session.ttlSeconds, session.userAgent, session.ip],
    );
    return row.id;
  }

  /**
   * Spends the current token `tokenHash` of a live session for `nextHash`, renewing its
   * expiry, and keeps the spent one. One conditional statement: of concurrent refreshes
   * with one token, the first to lock the row changes its hash, and the others, which
   * re-check the condition once it commits, match nothing.
   */
  async rotate(
    tokenHash: string,
    nextHash: string,
    ttlSeconds: number,
  ): Promise<{ id: number; userId: number } | undefined> {
    const [row] = await this.txHost.tx.query<{ id: number; userId: number }[]>(
      `WITH rotated AS (
         UPDATE sessions
            SET token_hash = $2, last_used_at = now(), expires_at = now() + $3 * interval '1 second'
          WHERE token_hash = $1 AND revoked_at IS NULL AND expires_at > now()
         RETURNING id, user_id
       ), spent AS (
         INSERT INTO spent_refresh_tokens (token_hash, session_id) SELECT $1, id FROM rotated
       )
       SELECT id, user_id AS "userId" FROM rotated`,
      [tokenHash, nextHash, ttlSeconds],
    );
    return row;
  }

  /** Revokes the session that spent `tokenHash`; the ids of the sessions it revoked. */
  async revokeBySpentToken(tokenHash: string): Promise<number[]> {
    const [rows] = await this.txHost.tx.query<[{ id: number }[], number]>(
      `UPDATE sessions SET revoked_at = now()
        WHERE id = (SELECT session_id FROM spent_refresh_tokens WHERE token_hash = $1)
          AND revoked_at IS NULL
       RETURNING id`,
      [tokenHash],
    );
    return rows.map((row) => row.id);
  }

  /** Revokes the session whose current or a spent token is `tokenHash`; those revoked. */
  async revokeByToken(tokenHash: string): Promise<RevokedSession[]> {
    const [rows] = await this.txHost.tx.query<[RevokedSession[], number]>(
      `UPDATE sessions SET revoked_at = now()
        WHERE (token_hash = $1
               OR id = (SELECT session_id FROM spent_refresh_tokens WHERE token_hash = $1))
          AND revoked_at IS NULL
       RETURNING id, user_id AS "userId"`,
      [tokenHash],
    );
    return rows;
  }

  /** False when the user holds no active session of this id. */
  async revokeOwned(userId: number, id: number): Promise<boolean> {
    const [rows] = await this.txHost.tx.query<[{ id: number }[], number]>(
      `UPDATE sessions SET revoked_at = now()
        WHERE id = $1 AND user_id = $2 AND revoked_at IS NULL AND expires_at > now()
       RETURNING id`,
      [id, userId],
    );
    return rows.length > 0;
  }

  /** The ids of the sessions it revoked. */
  async revokeAllOfUser(userId: number): Promise<number[]> {
    const [rows] = await this.txHost.tx.query<[{ id: number }[], number]>(
      `UPDATE sessions SET revoked_at = now()
        WHERE user_id = $1 AND revoked_at IS NULL
       RETURNING id`,
      [userId],
    );
    return rows.map((row) => row.id);
  }

  /** Active (neither revoked nor expired), newest first. */
  findActiveOfUser(userId: number, limit: number): Promise<SessionRow[]> {
    return this.txHost.tx.query<SessionRow[]>(
      `SELECT id, created_at AS "createdAt", last_used_at AS "lastUsedAt",
              user_agent AS "userAgent", ip
         FROM sessions
        WHERE user_id = $1 AND revoked_at IS NULL AND expires_at > now()
        ORDER BY created_at DESC, id DESC
        LIMIT $2`,
      [userId, limit],
    );
  }

  /**
   * Deletes up to `limit` sessions revoked or expired more than `retentionSeconds` ago, their
   * spent tokens with them (foreign key `ON DELETE CASCADE`); how many. Neither condition
   * can turn false again: a revoked session stays revoked, and an expired one no longer
   * rotates.
   */
  async deleteEnded(retentionSeconds: number, limit: number): Promise<number> {
    const [, deleted] = await this.txHost.tx.query<[unknown[], number]>(
      `DELETE FROM sessions
        WHERE id IN (SELECT id FROM sessions
                      WHERE revoked_at < now() - $1 * interval '1 second'
                         OR expires_at < now() - $1 * interval '1 second'
                      LIMIT $2)`,
      [retentionSeconds, limit],
    );
    return deleted;
  }

  /**
   * Whether the user's session is not revoked: what an access token of it needs. Its
   * refresh expiry does not matter here, as the access token has its own.
   */
  async isLive(id: number, userId: number): Promise<boolean> {
    const rows = await this.txHost.tx.query<unknown[]>(
      `SELECT 1 FROM sessions WHERE id = $1 AND user_id = $2 AND revoked_at IS NULL`,
      [id, userId],
    );
    return rows.length > 0;
  }
}
