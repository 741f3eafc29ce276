import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { USER_AGENT_MAX_LENGTH } from '../common/http/request-origin.js';
import type {
  AuditAction,
  AuditChanges,
  AuditCredential,
  AuditOutcome,
  AuditTargetType,
} from './audit-actions.js';

/** A failed login's username tried is cut to this many characters. */
export const ACTOR_USERNAME_MAX_LENGTH = 200;

/**
 * One entry of the audit log, append-only: written in the transaction of the change it
 * records (a failed login: on its own), removed only by the retention purge. No foreign
 * keys: an entry outlives the user and the thing it names.
 */
@Entity({ name: 'audit_events' })
@Index('IDX_audit_events_occurred_at', ['occurredAt'])
@Index('IDX_audit_events_action', ['action', 'id'])
@Index('IDX_audit_events_actor', ['actorUserId', 'id'])
@Index('IDX_audit_events_target', ['targetType', 'targetId', 'id'])
export class AuditEvent {
  @PrimaryGeneratedColumn('identity', {
    type: 'bigint',
    generatedIdentity: 'ALWAYS',
    primaryKeyConstraintName: 'PK_audit_events',
  })
  id: number;

  @Column({ name: 'occurred_at', type: 'timestamptz', precision: 3, default: () => 'now()' })
  occurredAt: Date;

  @Column({ type: 'varchar', length: 64 })
  action: AuditAction;

  @Column({ type: 'varchar', length: 16 })
  outcome: AuditOutcome;

  @Column({ name: 'actor_user_id', type: 'bigint', nullable: true })
  actorUserId: number | null;

  /** As it was at the time; for a failed login, the username tried. */
  @Column({
    name: 'actor_username',
    type: 'varchar',
    length: ACTOR_USERNAME_MAX_LENGTH,
    nullable: true,
  })
  actorUsername: string | null;

  @Column({ name: 'actor_credential', type: 'varchar', length: 16 })
  actorCredential: AuditCredential;

  @Column({ name: 'actor_api_key_prefix', type: 'varchar', length: 16, nullable: true })
  actorApiKeyPrefix: string | null;

  @Column({ name: 'target_type', type: 'varchar', length: 32, nullable: true })
  targetType: AuditTargetType | null;

  @Column({ name: 'target_id', type: 'bigint', nullable: true })
  targetId: number | null;

  @Column({ type: 'jsonb', nullable: true })
  changes: AuditChanges | null;

  /** Null only for entries made outside a request. */
  @Column({ type: 'varchar', length: 45, nullable: true })
  ip: string | null;

  @Column({ name: 'user_agent', type: 'varchar', length: USER_AGENT_MAX_LENGTH, nullable: true })
  userAgent: string | null;

  /** The service's own id of the request. */
  @Column({ name: 'request_id', type: 'varchar', length: 128, nullable: true })
  requestId: string | null;

  /** The caller's X-Request-Id, when it sent a well-formed one. */
  @Column({ name: 'client_request_id', type: 'varchar', length: 128, nullable: true })
  clientRequestId: string | null;
}
