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
import { User } from '../users/user.entity.js';
import { API_KEY_MODES, type ApiKeyMode } from '../common/types/api-key-mode.js';
import type { ApiKeyScope } from '../common/types/api-key-scope.js';
import { API_KEY_PREFIX_LENGTH } from './api-key-format.js';

@Entity({ name: 'api_keys' })
@Unique('UQ_api_keys_key_hash', ['keyHash'])
@Index('IDX_api_keys_user_id', ['userId'])
@Index('IDX_api_keys_expiry_unwarned', ['expiresAt'], {
  where: '"expiry_warned_at" IS NULL AND "expires_at" IS NOT NULL',
})
export class ApiKey {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' })
  id: number;

  @Column({ name: 'user_id', type: 'bigint' })
  userId: number;

  /** Deleting a user revokes its keys. */
  @ManyToOne(() => User, { onDelete: 'CASCADE', nullable: false })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'FK_api_keys_user' })
  user: User;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  @Column({ type: 'enum', enum: API_KEY_MODES, enumName: 'api_key_mode' })
  mode: ApiKeyMode;

  /**
   * What the key was limited to at creation, in API_KEY_SCOPES' order; null when it was made
   * without a list: every scope its owner's role allows, whatever that role becomes.
   */
  @Column({ type: 'text', array: true, nullable: true })
  scopes: ApiKeyScope[] | null;

  /** The key's first characters, kept in clear so that owners can tell their keys apart. */
  @Column({ type: 'varchar', length: API_KEY_PREFIX_LENGTH })
  prefix: string;

  /** SHA-256 of the whole key, hex; the key itself is never stored. */
  @Column({ name: 'key_hash', type: 'char', length: 64 })
  keyHash: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;

  /** When the key stops working; null when it never does. */
  @Column({ name: 'expires_at', type: 'timestamptz', precision: 3, nullable: true })
  expiresAt: Date | null;

  /**
   * When its owner was told of its end: by the warning mail a week before, or by rolling it
   * (docs/identity.md). Null while it is still to warn.
   */
  @Column({ name: 'expiry_warned_at', type: 'timestamptz', precision: 3, nullable: true })
  expiryWarnedAt: Date | null;

  @Column({ name: 'last_used_at', type: 'timestamptz', precision: 3, nullable: true })
  lastUsedAt: Date | null;
}
