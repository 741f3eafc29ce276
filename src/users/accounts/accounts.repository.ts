import { Injectable } from '@nestjs/common';
import { InjectTransactionHost } from '@nestjs-cls/transactional';
import type { TxHost } from '../../database/transactions.js';
import type { AccountTokenPurpose } from './account-tokens.js';

export interface NewAccountToken {
  tokenHash: string;
  purpose: AccountTokenPurpose;
  userId: number;
  /** The new address of an email change. */
  email: string | null;
  ttlSeconds: number;
}

/** What a used token grants. */
export interface UsedAccountToken {
  userId: number;
  purpose: AccountTokenPurpose;
  email: string | null;
}

/** Rows of stale addresses one call deletes: enough to keep up, never a long statement. */
const FORGOTTEN_PER_CALL = 10;
/** Untouched this long, a row is forgotten: longer than every window. */
const FORGET_AFTER_SECONDS = 2 * 3600;

/** The times of an address's row still within the window. */
const RECENT = `ARRAY(SELECT t FROM unnest(q.sent_at) AS t WHERE t > now() - $3 * interval '1 second')`;

/** A few other addresses' stale rows, deleted by the statement that counts ($1, $4). */
const FORGET = `DELETE FROM mail_quotas WHERE (address, scope) IN (
  SELECT address, scope FROM mail_quotas
   WHERE last_sent_at < now() - $4 * interval '1 second' AND address <> lower($1)
   LIMIT ${FORGOTTEN_PER_CALL} FOR UPDATE SKIP LOCKED)`;

/**
 * Past this age an answered ask guards nothing: the outbox retries an ask for 24 h, and a
 * lease outlives that by a minute.
 */
const ANSWERS_KEPT_FOR = '2 days';

/**
 * The only door to `account_tokens`, `mail_quotas`, `answered_asks` and `credential_changes`. Every method joins the transaction in
 * progress, if any. Times are the database's, so that instances with skewed clocks agree on
 * expiry and on the mail limit.
 */
@Injectable()
export class AccountsRepository {
  constructor(@InjectTransactionHost() private readonly txHost: TxHost) {}

  async insertToken(token: NewAccountToken): Promise<void> {
    await this.txHost.tx.query(
      `INSERT INTO account_tokens (token_hash, purpose, user_id, email, expires_at)
       VALUES ($1, $2, $3, $4, now() + $5 * interval '1 second')`,
      [token.tokenHash, token.purpose, token.userId, token.email, token.ttlSeconds],
    );
  }

  /**
   * Uses the token of `tokenHash` if it is unused, unexpired and of one of `purposes`, and
   * with it every other unused token of its user for those purposes: one link works, and
   * the older ones it supersedes stop. One statement, so that of two concurrent uses only
   * the first matches. Undefined when nothing matched.
   */
  async useToken(
    tokenHash: string,
    purposes: AccountTokenPurpose[],
  ): Promise<UsedAccountToken | undefined> {
    const [row] = await this.txHost.tx.query<UsedAccountToken[]>(
      `WITH used AS (
         UPDATE account_tokens SET used_at = now()
          WHERE token_hash = $1 AND purpose = ANY($2) AND used_at IS NULL AND expires_at > now()
         RETURNING user_id, purpose, email
       ), superseded AS (
         UPDATE account_tokens SET used_at = now()
          WHERE user_id = (SELECT user_id FROM used) AND purpose = ANY($2)
            AND used_at IS NULL AND token_hash <> $1
       )
       SELECT user_id AS "userId", purpose, email FROM used`,
      [tokenHash, purposes],
    );
    return row;
  }

  /** Spends every unused token of the user for `purposes`. */
  async spendTokensOfUser(userId: number, purposes: AccountTokenPurpose[]): Promise<void> {
    await this.txHost.tx.query(
      `UPDATE account_tokens SET used_at = now()
        WHERE user_id = $1 AND purpose = ANY($2) AND used_at IS NULL`,
      [userId, purposes],
    );
  }

  /**
   * Counts a mail to `address` (any case) in `scope` unless `limit` were already counted
   * there in the last `windowSeconds`: true when it may be sent. One upsert, whose row lock
   * serialises concurrent requests for an address and scope on every instance; it also
   * forgets a few rows of other addresses untouched for FORGET_AFTER_SECONDS (longer than
   * any window), skipping those another request holds, so that no request waits for
   * another address's.
   */
  async takeMailQuota(
    address: string,
    scope: string,
    limit: number,
    windowSeconds: number,
  ): Promise<boolean> {
    const [row] = await this.txHost.tx.query<{ allowed: boolean }[]>(
      `WITH forgotten AS (${FORGET}), counted AS (
         INSERT INTO mail_quotas AS q (address, scope, sent_at, last_sent_at)
         VALUES (lower($1), $5, ARRAY[now()], now())
         ON CONFLICT (address, scope) DO UPDATE SET
           sent_at = CASE WHEN cardinality(${RECENT}) < $2 THEN ${RECENT} || now() ELSE q.sent_at END,
           last_sent_at = CASE WHEN cardinality(${RECENT}) < $2 THEN now() ELSE q.last_sent_at END
         RETURNING q.last_sent_at = now() AS allowed
       )
       SELECT allowed FROM counted`,
      [address, limit, windowSeconds, FORGET_AFTER_SECONDS, scope],
    );
    return row.allowed;
  }

  /**
   * Whether `scope` of `address` has room for one more mail under `limit`, its row locked
   * until the transaction ends, so that the room is still there when takeMailQuota counts
   * the mail. No row yet is room: nothing to lock, and only `limit` first mails at once
   * could fill it meanwhile.
   */
  async hasMailRoom(
    address: string,
    scope: string,
    limit: number,
    windowSeconds: number,
  ): Promise<boolean> {
    const [row] = await this.txHost.tx.query<{ room: boolean }[]>(
      `SELECT cardinality(${RECENT}) < $2 AS room FROM mail_quotas q
        WHERE q.address = lower($1) AND q.scope = $4
        FOR UPDATE`,
      [address, limit, windowSeconds, scope],
    );
    return row?.room ?? true;
  }

  /** Milliseconds until `scope` of `address` has room for one more mail under `limit`. */
  async msUntilMailRoom(
    address: string,
    scope: string,
    limit: number,
    windowSeconds: number,
  ): Promise<number> {
    const [row] = await this.txHost.tx.query<{ ms: number }[]>(
      `SELECT greatest(0, ceil(extract(epoch FROM
                (SELECT t FROM unnest(q.sent_at) AS t ORDER BY t DESC OFFSET $3 - 1 LIMIT 1)
                + $4 * interval '1 second' - now()) * 1000))::int AS ms
         FROM mail_quotas q WHERE q.address = lower($1) AND q.scope = $2`,
      [address, scope, limit, windowSeconds],
    );
    return row?.ms ?? 0;
  }

  /** Marks a mail of `scope` owed to `address`: false when one already was. */
  async oweMail(address: string, scope: string): Promise<boolean> {
    const inserted = await this.txHost.tx.query<unknown[]>(
      `INSERT INTO mail_quotas (address, scope, sent_at, last_sent_at)
       VALUES (lower($1), $2, '{}', now())
       ON CONFLICT (address, scope) DO NOTHING
       RETURNING 1`,
      [address, scope],
    );
    return inserted.length > 0;
  }

  /**
   * Records the ask of outbox message `messageId` as answered, and forgets answers too old to
   * guard anything, in one statement: false when it already was answered (a hand-over again).
   */
  async markAskAnswered(messageId: number): Promise<boolean> {
    const inserted = await this.txHost.tx.query<unknown[]>(
      `WITH forgotten AS (
         DELETE FROM answered_asks WHERE answered_at < now() - interval '${ANSWERS_KEPT_FOR}'
       )
       INSERT INTO answered_asks (outbox_message_id) VALUES ($1)
       ON CONFLICT DO NOTHING
       RETURNING 1`,
      [messageId],
    );
    return inserted.length > 0;
  }

  /** Records a change of the user's password or email, now. */
  async recordCredentialChange(userId: number): Promise<void> {
    await this.txHost.tx.query(
      `INSERT INTO credential_changes (user_id, changed_at) VALUES ($1, now())
       ON CONFLICT (user_id) DO UPDATE SET changed_at = now()`,
      [userId],
    );
  }

  /** Whether the user's password or email changed at or after `since`. */
  async credentialsChangedSince(userId: number, since: Date): Promise<boolean> {
    const rows = await this.txHost.tx.query<unknown[]>(
      'SELECT 1 FROM credential_changes WHERE user_id = $1 AND changed_at >= $2',
      [userId, since],
    );
    return rows.length > 0;
  }

  /**
   * Joins an ask to the mail of `scope` owed to `address`, if one is: the row keeps the
   * last joined ask's time (last_sent_at). False when none is owed.
   */
  async joinOwedMail(address: string, scope: string): Promise<boolean> {
    const joined = await this.txHost.tx.query<unknown[]>(
      `WITH joined AS (
         UPDATE mail_quotas SET last_sent_at = now()
          WHERE address = lower($1) AND scope = $2
         RETURNING 1
       )
       SELECT 1 FROM joined`,
      [address, scope],
    );
    return joined.length > 0;
  }

  /** When the last ask joined the mail of `scope` owed to `address`; undefined if none is. */
  async lastOwedAsk(address: string, scope: string): Promise<Date | undefined> {
    const [row] = await this.txHost.tx.query<{ at: Date }[]>(
      'SELECT last_sent_at AS at FROM mail_quotas WHERE address = lower($1) AND scope = $2',
      [address, scope],
    );
    return row?.at;
  }

  async settleMail(address: string, scope: string): Promise<void> {
    await this.txHost.tx.query('DELETE FROM mail_quotas WHERE address = lower($1) AND scope = $2', [
      address,
      scope,
    ]);
  }
}
