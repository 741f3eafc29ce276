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
import { User } from '../user.entity.js';
import type { AccountTokenPurpose } from './account-tokens.js';

/** A mailed token (docs/identity.md, "Mailed tokens and account flows"): only its hash is kept. */
@Entity({ name: 'account_tokens' })
@Unique('UQ_account_tokens_token_hash', ['tokenHash'])
@Index('IDX_account_tokens_user_id', ['userId'])
export class AccountToken {
  @PrimaryGeneratedColumn('identity', {
    type: 'bigint',
    generatedIdentity: 'ALWAYS',
    primaryKeyConstraintName: 'PK_account_tokens',
  })
  id: number;

  /** SHA-256 of the token, hex. */
  @Column({ name: 'token_hash', type: 'char', length: 64 })
  tokenHash: string;

  @Column({ type: 'varchar', length: 16 })
  purpose: AccountTokenPurpose;

  @Column({ name: 'user_id', type: 'bigint' })
  userId: number;

  /** Deleting a user deletes its tokens. */
  @ManyToOne(() => User, { onDelete: 'CASCADE', nullable: false })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'FK_account_tokens_user' })
  user: User;

  /** The new address, for an email change; null otherwise. */
  @Column({ type: 'varchar', length: 254, nullable: true })
  email: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @Column({ name: 'expires_at', type: 'timestamptz', precision: 3 })
  expiresAt: Date;

  /** Set when the token is used, or spent by the use of another of its user's. */
  @Column({ name: 'used_at', type: 'timestamptz', precision: 3, nullable: true })
  usedAt: Date | null;
}
