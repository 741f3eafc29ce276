import { Injectable } from '@nestjs/common';
import { InjectTransactionHost } from '@nestjs-cls/transactional';
import type { TxHost } from '../../database/transactions.js';

export interface TotpFactorRow {
  secret: string;
  confirmed: boolean;
  lastTimeStep: number | null;
}

export interface ChallengeRow {
  id: number;
  userId: number;
  failures: number;
}

/**
 * The second factor's only door to the database: `totp_factors`, `recovery_codes` and
 * `mfa_challenges`. Every method joins the transaction in progress, if any. Expiry uses the
 * database's clock, as sessions do; TOTP time steps come from the caller (Clock).
 */
@Injectable()
export class MfaRepository {
  constructor(@InjectTransactionHost() private readonly txHost: TxHost) {}

  /**
   * Starts (or restarts) an enrolment with a new sealed secret; false when a confirmed
   * factor exists, which a new enrolment must not replace.
   */
  async upsertPending(userId: number, sealedSecret: string): Promise<boolean> {
    const rows = await this.txHost.tx.query<unknown[]>(
      `INSERT INTO totp_factors (user_id, secret) VALUES ($1, $2)
       ON CONFLICT (user_id) DO UPDATE
          SET secret = EXCLUDED.secret, last_time_step = NULL, created_at = now()
        WHERE totp_factors.confirmed_at IS NULL
       RETURNING user_id`,
      [userId, sealedSecret],
    );
    return rows.length > 0;
  }

  async findTotp(userId: number): Promise<TotpFactorRow | undefined> {
    const [row] = await this.txHost.tx.query<TotpFactorRow[]>(
      `SELECT secret, confirmed_at IS NOT NULL AS confirmed, last_time_step AS "lastTimeStep"
         FROM totp_factors WHERE user_id = $1`,
      [userId],
    );
    return row;
  }

  async isEnabled(userId: number): Promise<boolean> {
    const rows = await this.txHost.tx.query<unknown[]>(
      `SELECT 1 FROM totp_factors WHERE user_id = $1 AND confirmed_at IS NOT NULL`,
      [userId],
    );
    return rows.length > 0;
  }

  /**
   * Records `timeStep` as the last accepted one (confirming a pending factor), writing the
   * secret back sealed with the current key; false when a code of that step or a later one
   * was accepted first. One conditional statement: of two requests with one code, the
   * second matches nothing once the first commits.
   */
  async acceptTimeStep(userId: number, timeStep: number, sealedSecret: string): Promise<boolean> {
    const [, count] = await this.txHost.tx.query<[unknown[], number]>(
      `UPDATE totp_factors
          SET last_time_step = $2, secret = $3, confirmed_at = coalesce(confirmed_at, now())
        WHERE user_id = $1 AND (last_time_step IS NULL OR last_time_step < $2)`,
      [userId, timeStep, sealedSecret],
    );
    return count > 0;
  }

  /** Removes the account's factor and recovery codes; whether a confirmed factor was removed. */
  async removeAll(userId: number): Promise<boolean> {
    const [rows] = await this.txHost.tx.query<[{ confirmed: boolean }[], number]>(
      `WITH codes AS (DELETE FROM recovery_codes WHERE user_id = $1)
       DELETE FROM totp_factors WHERE user_id = $1 RETURNING confirmed_at IS NOT NULL AS confirmed`,
      [userId],
    );
    return rows.some((row) => row.confirmed);
  }

  async replaceRecoveryCodes(userId: number, codeHashes: string[]): Promise<void> {
    await this.txHost.tx.query(`DELETE FROM recovery_codes WHERE user_id = $1`, [userId]);
    await this.txHost.tx.query(
      `INSERT INTO recovery_codes (user_id, code_hash) SELECT $1, unnest($2::char(64)[])`,
      [userId, codeHashes],
    );
  }

  /** Spends an unused recovery code of the account; false when there is none such. */
  async useRecoveryCode(userId: number, codeHash: string): Promise<boolean> {
    const [, count] = await this.txHost.tx.query<[unknown[], number]>(
      `UPDATE recovery_codes SET used_at = now()
        WHERE user_id = $1 AND code_hash = $2 AND used_at IS NULL`,
      [userId, codeHash],
    );
    return count > 0;
  }

  /** A new waiting login; the account's expired ones go with it. */
  async insertChallenge(userId: number, tokenHash: string, ttlSeconds: number): Promise<void> {
    await this.txHost.tx.query(
      `DELETE FROM mfa_challenges WHERE user_id = $1 AND expires_at <= now()`,
      [userId],
    );
    await this.txHost.tx.query(
      `INSERT INTO mfa_challenges (user_id, token_hash, expires_at)
       VALUES ($1, $2, now() + $3 * interval '1 second')`,
      [userId, tokenHash, ttlSeconds],
    );
  }

  /**
   * The unexpired waiting login of `tokenHash`, locked until the transaction ends: two
   * requests with one token are answered one after the other, and the second finds it gone.
   */
  async lockChallenge(tokenHash: string): Promise<ChallengeRow | undefined> {
    const [row] = await this.txHost.tx.query<ChallengeRow[]>(
      `SELECT id, user_id AS "userId", failures FROM mfa_challenges
        WHERE token_hash = $1 AND expires_at > now()
          FOR UPDATE`,
      [tokenHash],
    );
    return row;
  }

  async deleteChallenge(id: number): Promise<void> {
    await this.txHost.tx.query(`DELETE FROM mfa_challenges WHERE id = $1`, [id]);
  }

  async countChallengeFailure(id: number): Promise<void> {
    await this.txHost.tx.query(`UPDATE mfa_challenges SET failures = failures + 1 WHERE id = $1`, [
      id,
    ]);
  }
}
