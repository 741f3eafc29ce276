import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
  VersionColumn,
} from 'typeorm';
import { ROLES, type Role } from '../common/types/principal.js';
import type { UserStatus } from './user-status.js';

@Entity({ name: 'users' })
// Expression indexes (lower(...)) written by hand in the migrations: unique case-insensitively;
// an email among the accounts that hold it, not among sign-ups awaiting its verification.
@Index('UQ_users_username_lower', { synchronize: false })
@Index('UQ_users_email_lower', { synchronize: false })
@Index('IDX_users_email_lower_pending', { synchronize: false })
// Partial (WHERE unverified_sign_up), written by hand in the migration: the expiry's look-up.
@Index('IDX_users_unverified_sign_up_created', { synchronize: false })
export class User {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' })
  id: number;

  @Column({ type: 'varchar', length: 32 })
  username: string;

  @Column({ type: 'varchar', length: 254 })
  email: string;

  /** argon2id PHC string; never leaves the users and auth services. */
  @Column({ name: 'password_hash', type: 'varchar', length: 255 })
  passwordHash: string;

  @Column({ name: 'first_name', type: 'varchar', length: 100, nullable: true })
  firstName: string | null;

  @Column({ name: 'last_name', type: 'varchar', length: 100, nullable: true })
  lastName: string | null;

  @Column({ type: 'varchar', length: 32, nullable: true })
  phone: string | null;

  @Column({ name: 'user_status', type: 'smallint', default: 0 })
  userStatus: UserStatus;

  @Column({ type: 'enum', enum: ROLES, enumName: 'user_role', default: 'user' })
  role: Role;

  /**
   * Bearer tokens issued at or before this moment are refused: set when the password
   * changes or the account is deactivated. Null when neither has happened.
   */
  @Column({ name: 'tokens_valid_after', type: 'timestamptz', precision: 3, nullable: true })
  tokensValidAfter: Date | null;

  /**
   * The address of the user's own email change, until the link mailed to it is used
   * (docs/identity.md, "Mailed tokens and account flows"); null when none is pending.
   */
  @Column({ name: 'pending_email', type: 'varchar', length: 254, nullable: true })
  pendingEmail: string | null;

  /** When the pending change's link stops working; pendingEmail is shown until then. */
  @Column({ name: 'pending_email_expires_at', type: 'timestamptz', precision: 3, nullable: true })
  pendingEmailExpiresAt: Date | null;

  /**
   * A sign-up whose address is not verified yet: removed UNVERIFIED_ACCOUNT_TTL_HOURS after
   * its creation unless it becomes active first, which clears this for good.
   */
  @Column({ name: 'unverified_sign_up', type: 'boolean', default: false })
  unverifiedSignUp: boolean;

  /** Raised by every write of the row; the resource's ETag derives from it. */
  @VersionColumn({ default: 1 })
  version: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz', precision: 3 })
  updatedAt: Date;
}
