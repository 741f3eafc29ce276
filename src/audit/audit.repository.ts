import { Injectable } from '@nestjs/common';
import { InjectTransactionHost } from '@nestjs-cls/transactional';
import type { Statement, TxHost } from '../database/transactions.js';
import type {
  AuditAction,
  AuditChanges,
  AuditCredential,
  AuditOutcome,
  AuditTargetType,
} from './audit-actions.js';
import type { AuditContext } from './audit-context.js';

/** An entry to write: the change, and who made it from where. */
export interface NewAuditEntry extends AuditContext {
  action: AuditAction;
  outcome: AuditOutcome;
  targetType: AuditTargetType | null;
  targetId: number | null;
  changes: AuditChanges | null;
}

/** An entry as read. */
export interface AuditEntryRow {
  id: number;
  occurredAt: Date;
  action: AuditAction;
  outcome: AuditOutcome;
  actorUserId: number | null;
  actorUsername: string | null;
  actorCredential: AuditCredential;
  actorApiKeyPrefix: string | null;
  targetType: AuditTargetType | null;
  targetId: number | null;
  changes: AuditChanges | null;
  ip: string | null;
  userAgent: string | null;
  requestId: string | null;
  clientRequestId: string | null;
}

/** The list's filters, each optional; `since` inclusive, `until` exclusive. */
export interface AuditFilters {
  action?: AuditAction;
  actorId?: number;
  targetType?: AuditTargetType;
  targetId?: number;
  since?: Date;
  until?: Date;
}

/** Logins per UTC day (`YYYY-MM-DD`), as counted from the entries. */
export interface LoginCounts {
  date: string;
  logins: number;
  failedLogins: number;
}

const COLUMNS = `id, occurred_at AS "occurredAt", action, outcome,
  actor_user_id AS "actorUserId", actor_username AS "actorUsername",
  actor_credential AS "actorCredential", actor_api_key_prefix AS "actorApiKeyPrefix",
  target_type AS "targetType", target_id AS "targetId", changes, ip,
  user_agent AS "userAgent", request_id AS "requestId",
  client_request_id AS "clientRequestId"`;

// The actor's username is read as it is when the entries are written (each entry then keeps
// it as it was), unless given.
const INSERT = `INSERT INTO audit_events (action, outcome, actor_user_id, actor_username,
    actor_credential, actor_api_key_prefix, target_type, target_id, changes, ip, user_agent,
    request_id, client_request_id)
  SELECT e.action, e.outcome, e.actor_user_id,
         COALESCE(e.actor_username, (SELECT username FROM users WHERE id = e.actor_user_id)),
         e.actor_credential, e.actor_api_key_prefix, e.target_type, e.target_id, e.changes,
         e.ip, e.user_agent, e.request_id, e.client_request_id
    FROM unnest($1::text[], $2::text[], $3::int8[], $4::text[], $5::text[], $6::text[],
                $7::text[], $8::int8[], $9::jsonb[], $10::text[], $11::text[], $12::text[],
                $13::text[])
         AS e(action, outcome, actor_user_id, actor_username, actor_credential,
              actor_api_key_prefix, target_type, target_id, changes, ip, user_agent,
              request_id, client_request_id)`;

/** `WHERE` conditions for `filters`, numbering parameters after `params`. */
function whereOf(filters: AuditFilters, params: unknown[]): string[] {
  const conditions: string[] = [];
  const add = (condition: (placeholder: string) => string, value: unknown) => {
    params.push(value);
    conditions.push(condition(`$${params.length}`));
  };
  if (filters.action !== undefined) add((p) => `action = ${p}`, filters.action);
  if (filters.actorId !== undefined) add((p) => `actor_user_id = ${p}`, filters.actorId);
  if (filters.targetType !== undefined) add((p) => `target_type = ${p}`, filters.targetType);
  if (filters.targetId !== undefined) add((p) => `target_id = ${p}`, filters.targetId);
  if (filters.since !== undefined) add((p) => `occurred_at >= ${p}`, filters.since);
  if (filters.until !== undefined) add((p) => `occurred_at < ${p}`, filters.until);
  return conditions;
}

/** The audit log's only door to the database (`audit_events`). */
@Injectable()
export class AuditRepository {
  constructor(@InjectTransactionHost() private readonly txHost: TxHost) {}

  /**
   * The statement that writes the entries, in order, in one INSERT; run in the transaction of
   * their change, they commit, or roll back, with it.
   */
  insertStatement(entries: NewAuditEntry[]): Statement {
    return {
      sql: INSERT,
      params: [
        entries.map((entry) => entry.action),
        entries.map((entry) => entry.outcome),
        entries.map((entry) => entry.actorUserId),
        entries.map((entry) => entry.actorUsername),
        entries.map((entry) => entry.actorCredential),
        entries.map((entry) => entry.actorApiKeyPrefix),
        entries.map((entry) => entry.targetType),
        entries.map((entry) => entry.targetId),
        entries.map((entry) => (entry.changes === null ? null : JSON.stringify(entry.changes))),
        entries.map((entry) => entry.ip),
        entries.map((entry) => entry.userAgent),
        entries.map((entry) => entry.requestId),
        entries.map((entry) => entry.clientRequestId),
      ],
    };
  }

  /** Newest first: up to `limit` entries matching `filters`, below `beforeId` when given. */
  findPage(filters: AuditFilters, limit: number, beforeId?: number): Promise<AuditEntryRow[]> {
    const params: unknown[] = [];
    const conditions = whereOf(filters, params);
    if (beforeId !== undefined) {
      params.push(beforeId);
      conditions.push(`id < $${params.length}`);
    }
    params.push(limit);
    return this.txHost.tx.query<AuditEntryRow[]>(
      `SELECT ${COLUMNS} FROM audit_events
        ${conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : ''}
        ORDER BY id DESC LIMIT $${params.length}`,
      params,
    );
  }

  /** Oldest first: up to `limit` entries in [since, until) after `afterId` (keyset batches). */
  findBatch(
    range: Pick<AuditFilters, 'since' | 'until'>,
    afterId: number,
    limit: number,
  ): Promise<AuditEntryRow[]> {
    const params: unknown[] = [afterId];
    const conditions = ['id > $1', ...whereOf(range, params)];
    params.push(limit);
    return this.txHost.tx.query<AuditEntryRow[]>(
      `SELECT ${COLUMNS} FROM audit_events WHERE ${conditions.join(' AND ')}
        ORDER BY id LIMIT $${params.length}`,
      params,
    );
  }

  /** Deletes up to `limit` of the entries made before `before`; how many. */
  async deleteOlderThan(before: Date, limit: number): Promise<number> {
    const [, deleted] = await this.txHost.tx.query<[unknown[], number]>(
      `DELETE FROM audit_events
        WHERE id IN (SELECT id FROM audit_events WHERE occurred_at < $1 LIMIT $2)`,
      [before, limit],
    );
    return deleted;
  }

  /** Successful and failed logins per UTC day since `since`, for the days that had any. */
  countLoginsPerDay(since: Date): Promise<LoginCounts[]> {
    return this.txHost.tx.query<LoginCounts[]>(
      `SELECT to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS date,
              count(*) FILTER (WHERE outcome = 'success')::int AS logins,
              count(*) FILTER (WHERE outcome = 'failure')::int AS "failedLogins"
         FROM audit_events
        WHERE action = 'auth.login' AND occurred_at >= $1
        GROUP BY 1`,
      [since],
    );
  }
}
