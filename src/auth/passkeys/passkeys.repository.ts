import { Injectable } from '@nestjs/common';
import { InjectTransactionHost } from '@nestjs-cls/transactional';
import type { TxHost } from '../../database/transactions.js';

export type ChallengePurpose = 'registration' | 'login' | 'second_factor' | 'proof';

export interface PasskeyRow {
  id: number;
  userId: number;
  credentialId: string;
  publicKey: Buffer;
  counter: number;
  transports: string[];
  name: string;
  deviceType: string;
  backedUp: boolean;
  createdAt: Date;
  lastUsedAt: Date | null;
}

export interface NewPasskey {
  userId: number;
  credentialId: string;
  publicKey: Uint8Array;
  counter: number;
  transports: string[];
  name: string;
  deviceType: string;
  backedUp: boolean;
}

const COLUMNS = `id::int AS id, user_id::int AS "userId", credential_id AS "credentialId",
  public_key AS "publicKey", counter::float8 AS counter, transports, name,
  device_type AS "deviceType", backed_up AS "backedUp", created_at AS "createdAt",
  last_used_at AS "lastUsedAt"`;

/**
 * The passkeys' only door to the database: `passkeys` and `passkey_challenges`. Every method
 * joins the transaction in progress, if any. Challenges expire by the service's Clock (the
 * caller passes its time), so that tests move it.
 */
@Injectable()
export class PasskeysRepository {
  constructor(@InjectTransactionHost() private readonly txHost: TxHost) {}

  async listOf(userId: number): Promise<PasskeyRow[]> {
    return this.txHost.tx.query<PasskeyRow[]>(
      `SELECT ${COLUMNS} FROM passkeys WHERE user_id = $1 ORDER BY id`,
      [userId],
    );
  }

  async hasAny(userId: number): Promise<boolean> {
    const rows = await this.txHost.tx.query<unknown[]>(
      `SELECT 1 FROM passkeys WHERE user_id = $1 LIMIT 1`,
      [userId],
    );
    return rows.length > 0;
  }

  async findOwn(userId: number, id: number): Promise<PasskeyRow | undefined> {
    const [row] = await this.txHost.tx.query<PasskeyRow[]>(
      `SELECT ${COLUMNS} FROM passkeys WHERE id = $1 AND user_id = $2`,
      [id, userId],
    );
    return row;
  }

  async findByCredentialId(credentialId: string): Promise<PasskeyRow | undefined> {
    const [row] = await this.txHost.tx.query<PasskeyRow[]>(
      `SELECT ${COLUMNS} FROM passkeys WHERE credential_id = $1`,
      [credentialId],
    );
    return row;
  }

  /** The new passkey; undefined when its credential id is registered already (any account). */
  async insert(passkey: NewPasskey): Promise<PasskeyRow | undefined> {
    const [row] = await this.txHost.tx.query<PasskeyRow[]>(
      `INSERT INTO passkeys
         (user_id, credential_id, public_key, counter, transports, name, device_type, backed_up)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (credential_id) DO NOTHING
       RETURNING ${COLUMNS}`,
      [
        passkey.userId,
        passkey.credentialId,
        Buffer.from(passkey.publicKey),
        passkey.counter,
        passkey.transports,
        passkey.name,
        passkey.deviceType,
        passkey.backedUp,
      ],
    );
    return row;
  }

  async rename(userId: number, id: number, name: string): Promise<PasskeyRow | undefined> {
    const [rows] = await this.txHost.tx.query<[PasskeyRow[], number]>(
      `UPDATE passkeys SET name = $3 WHERE id = $1 AND user_id = $2 RETURNING ${COLUMNS}`,
      [id, userId, name],
    );
    return rows[0];
  }

  /**
   * Records a use: the new counter, backup state and time. One conditional statement: false
   * when a use with this counter or a higher one was recorded first (a clone, or a replay
   * racing this one). Counters of 0 on both sides are an authenticator that keeps none.
   */
  async recordUse(
    id: number,
    counter: number,
    backup: { deviceType: string; backedUp: boolean },
  ): Promise<boolean> {
    const [, count] = await this.txHost.tx.query<[unknown[], number]>(
      `UPDATE passkeys
          SET counter = $2, device_type = $3, backed_up = $4, last_used_at = now()
        WHERE id = $1 AND (counter < $2 OR (counter = 0 AND $2 = 0))`,
      [id, counter, backup.deviceType, backup.backedUp],
    );
    return count > 0;
  }

  async deleteOwn(userId: number, id: number): Promise<boolean> {
    const [, count] = await this.txHost.tx.query<[unknown[], number]>(
      `DELETE FROM passkeys WHERE id = $1 AND user_id = $2`,
      [id, userId],
    );
    return count > 0;
  }

  /** Every passkey of the account; how many there were. */
  async deleteAllOf(userId: number): Promise<number> {
    const [, count] = await this.txHost.tx.query<[unknown[], number]>(
      `DELETE FROM passkeys WHERE user_id = $1`,
      [userId],
    );
    return count;
  }

  /** A new challenge; every expired one (of any account) goes with it. */
  async insertChallenge(
    challenge: string,
    purpose: ChallengePurpose,
    userId: number | null,
    now: Date,
    expiresAt: Date,
  ): Promise<void> {
    await this.txHost.tx.query(`DELETE FROM passkey_challenges WHERE expires_at <= $1`, [now]);
    await this.txHost.tx.query(
      `INSERT INTO passkey_challenges (challenge, purpose, user_id, expires_at)
       VALUES ($1, $2, $3, $4)`,
      [challenge, purpose, userId, expiresAt],
    );
  }

  /**
   * Spends a challenge of this purpose (and account, when given): deleted whether or not
   * the response that carried it verifies, so that it serves once. Whether it was there,
   * unexpired; one statement, so of two requests with one challenge only one finds it.
   */
  async spendChallenge(
    challenge: string,
    purpose: ChallengePurpose,
    userId: number | null,
    now: Date,
  ): Promise<boolean> {
    const [rows] = await this.txHost.tx.query<[{ live: boolean }[], number]>(
      `DELETE FROM passkey_challenges
        WHERE challenge = $1 AND purpose = $2 AND user_id IS NOT DISTINCT FROM $3
       RETURNING expires_at > $4 AS live`,
      [challenge, purpose, userId, now],
    );
    return rows.some((row) => row.live);
  }
}
