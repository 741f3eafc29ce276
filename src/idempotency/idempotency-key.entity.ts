import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';
import { MAX_IDEMPOTENCY_KEY_LENGTH } from './idempotency-key.js';

const PRIMARY_KEY = 'PK_idempotency_keys';

/**
 * One Idempotency-Key of one caller on one operation: running while its first request
 * works (`responseStatus` null, held until `lockedUntil`), then the response it got, until
 * `expiresAt`. No foreign key to `users`: a row outlives its user by at most a day, and
 * the table stays out of the users' writes.
 */
@Entity({ name: 'idempotency_keys' })
@Index('IDX_idempotency_keys_expires_at', ['expiresAt'])
export class IdempotencyKey {
  @PrimaryColumn({ name: 'user_id', type: 'bigint', primaryKeyConstraintName: PRIMARY_KEY })
  userId: number;

  /** The method and route template, e.g. `POST /v1/pets/:petId/upload-image`. */
  @PrimaryColumn({ type: 'varchar', length: 200, primaryKeyConstraintName: PRIMARY_KEY })
  operation: string;

  @PrimaryColumn({
    type: 'varchar',
    length: MAX_IDEMPOTENCY_KEY_LENGTH,
    primaryKeyConstraintName: PRIMARY_KEY,
  })
  key: string;

  /** SHA-256 (hex) of the request, see request-fingerprint.ts. */
  @Column({ type: 'char', length: 64 })
  fingerprint: string;

  /** Who holds the claim: only its holder may store a response or release the key. */
  @Column({ type: 'uuid' })
  token: string;

  /** While running: after this, the claim may be taken over (its instance is presumed dead). */
  @Column({ name: 'locked_until', type: 'timestamptz', precision: 3, nullable: true })
  lockedUntil: Date | null;

  @Column({ name: 'response_status', type: 'smallint', nullable: true })
  responseStatus: number | null;

  @Column({ name: 'response_headers', type: 'jsonb', nullable: true })
  responseHeaders: Record<string, string> | null;

  /** `json`, not `jsonb`: the body is replayed with its keys in their original order. */
  @Column({ name: 'response_body', type: 'json', nullable: true })
  responseBody: unknown;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @Column({ name: 'expires_at', type: 'timestamptz', precision: 3 })
  expiresAt: Date;
}
