import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  Unique,
} from 'typeorm';
import { User } from '../../users/user.entity.js';

/**
 * A WebAuthn credential of an account (docs/identity.md, Passkeys): a second factor, and a
 * way to sign in without a password. Deleting the account deletes it.
 */
@Entity({ name: 'passkeys' })
@Unique('UQ_passkeys_credential_id', ['credentialId'])
@Index('IDX_passkeys_user_id', ['userId'])
export class Passkey {
  @PrimaryGeneratedColumn('identity', {
    type: 'bigint',
    generatedIdentity: 'ALWAYS',
    primaryKeyConstraintName: 'PK_passkeys',
  })
  id: number;

  @Column({ name: 'user_id', type: 'bigint' })
  userId: number;

  @ManyToOne(() => User, { onDelete: 'CASCADE', nullable: false })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'FK_passkeys_user' })
  user: User;

  /** The authenticator's credential id, base64url; unique across accounts. */
  @Column({ name: 'credential_id', type: 'varchar', length: 1366 })
  credentialId: string;

  /** The COSE public key. */
  @Column({ name: 'public_key', type: 'bytea' })
  publicKey: Buffer;

  /** The last signature counter accepted: a use that does not raise it is a clone's. */
  @Column({ type: 'bigint', default: 0 })
  counter: number;

  @Column({ type: 'text', array: true })
  transports: string[];

  @Column({ type: 'varchar', length: 64 })
  name: string;

  /** `singleDevice` or `multiDevice` (synced), as the authenticator said at its last use. */
  @Column({ name: 'device_type', type: 'varchar', length: 16 })
  deviceType: string;

  @Column({ name: 'backed_up', type: 'boolean' })
  backedUp: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @Column({ name: 'last_used_at', type: 'timestamptz', precision: 3, nullable: true })
  lastUsedAt: Date | null;
}

/**
 * A WebAuthn challenge the service issued, until used (or refused) once or expired: kept in
 * the database so that any instance can finish the ceremony another one started.
 */
@Entity({ name: 'passkey_challenges' })
@Unique('UQ_passkey_challenges_challenge', ['challenge'])
@Index('IDX_passkey_challenges_expires_at', ['expiresAt'])
export class PasskeyChallenge {
  @PrimaryGeneratedColumn('identity', {
    type: 'bigint',
    generatedIdentity: 'ALWAYS',
    primaryKeyConstraintName: 'PK_passkey_challenges',
  })
  id: number;

  /** base64url, as in the options and the client's `clientDataJSON`. */
  @Column({ type: 'varchar', length: 64 })
  challenge: string;

  /** `registration`, `login`, `second_factor` or `proof` (docs/identity.md, Passkeys). */
  @Column({ type: 'varchar', length: 16 })
  purpose: string;

  /** The account the ceremony is for; none for a sign-in without a password. */
  @Column({ name: 'user_id', type: 'bigint', nullable: true })
  userId: number | null;

  @ManyToOne(() => User, { onDelete: 'CASCADE', nullable: true })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'FK_passkey_challenges_user' })
  user: User | null;

  @Column({ name: 'expires_at', type: 'timestamptz', precision: 3 })
  expiresAt: Date;
}
