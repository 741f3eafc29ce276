import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  PrimaryGeneratedColumn,
  Unique,
} from 'typeorm';
import { User } from '../../users/user.entity.js';

/** docs/identity.md, Sessions: a `User-Agent` longer than this is cut, not refused. */
export const SESSION_USER_AGENT_MAX_LENGTH = 256;
/** The longest textual IPv6 address with an embedded IPv4 one. */
export const SESSION_IP_MAX_LENGTH = 45;

/** One login and every refresh token descended from it. */
@Entity({ name: 'sessions' })
@Unique('UQ_sessions_token_hash', ['tokenHash'])
@Index('IDX_sessions_user_id', ['userId'])
export class Session {
  @PrimaryGeneratedColumn('identity', {
    type: 'bigint',
    generatedIdentity: 'ALWAYS',
    primaryKeyConstraintName: 'PK_sessions',
  })
  id: number;

  @Column({ name: 'user_id', type: 'bigint' })
  userId: number;

  /** Deleting a user deletes its sessions. */
  @ManyToOne(() => User, { onDelete: 'CASCADE', nullable: false })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'FK_sessions_user' })
  user: User;

  /** SHA-256 of the current refresh token, hex; the token itself is never stored. */
  @Column({ name: 'token_hash', type: 'char', length: 64 })
  tokenHash: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @Column({ name: 'last_used_at', type: 'timestamptz', precision: 3 })
  lastUsedAt: Date;

  @Column({ name: 'expires_at', type: 'timestamptz', precision: 3 })
  expiresAt: Date;

  @Column({
    name: 'user_agent',
    type: 'varchar',
    length: SESSION_USER_AGENT_MAX_LENGTH,
    nullable: true,
  })
  userAgent: string | null;

  @Column({ type: 'varchar', length: SESSION_IP_MAX_LENGTH, nullable: true })
  ip: string | null;

  @Column({ name: 'revoked_at', type: 'timestamptz', precision: 3, nullable: true })
  revokedAt: Date | null;
}

/**
 * A refresh token that a refresh has spent, kept as long as its session, so that presenting
 * it again is recognised as reuse (docs/identity.md, Sessions).
 */
@Entity({ name: 'spent_refresh_tokens' })
@Index('IDX_spent_refresh_tokens_session_id', ['sessionId'])
export class SpentRefreshToken {
  @PrimaryColumn({
    name: 'token_hash',
    type: 'char',
    length: 64,
    primaryKeyConstraintName: 'PK_spent_refresh_tokens',
  })
  tokenHash: string;

  @Column({ name: 'session_id', type: 'bigint' })
  sessionId: number;

  @ManyToOne(() => Session, { onDelete: 'CASCADE', nullable: false })
  @JoinColumn({ name: 'session_id', foreignKeyConstraintName: 'FK_spent_refresh_tokens_session' })
  session: Session;
}
