import { Injectable, Logger, type BeforeApplicationShutdown } from '@nestjs/common';
import { InjectTransactionHost } from '@nestjs-cls/transactional';
import { messageOf } from '../common/errors/message-of.js';
import { afterCommit, type TxHost } from '../database/transactions.js';
import { MetricsService } from '../metrics/metrics.service.js';
import type { UserUpdated } from '../users/user-events.js';
import {
  redactSecrets,
  type AuditAction,
  type AuditChanges,
  type AuditOutcome,
  type AuditTargetType,
} from './audit-actions.js';
import { currentAuditContext, type AuditContext, type AuditRequest } from './audit-context.js';
import { ACTOR_USERNAME_MAX_LENGTH } from './audit-event.entity.js';
import { AuditRepository, type NewAuditEntry } from './audit.repository.js';

/** What a change records; the actor, address and request id come from the request. */
export interface AuditRecord {
  action: AuditAction;
  /** `success` unless said otherwise. */
  outcome?: AuditOutcome;
  target?: { type: AuditTargetType; id: number };
  /** Secret fields (passwords, tokens, key hashes, secrets) are stored as "[changed]". */
  changes?: AuditChanges;
  /**
   * Who acted, where the request's principal does not say it: a login or a sign-up names
   * the account it is about, since the request carries no credential.
   */
  actor?: Partial<Pick<AuditContext, 'actorUserId' | 'actorUsername' | 'actorCredential'>>;
  /** The request, for an entry written after its answer (from the outbox), outside it. */
  request?: AuditRequest;
}

/**
 * Who made a user's update, and so what it brought about: an edit is by the request's
 * principal; a mailed link's change by the account whose link it was, since the request
 * carries no credential and the link proves the mailbox.
 */
export const actorOfUserUpdate = (event: UserUpdated): AuditRecord['actor'] =>
  event.origin === 'edit' ? undefined : { actorUserId: event.userId };

/** A login refused for its username and password. */
export interface FailedLogin {
  /** The username tried, as sent (recorded cut to the column's length). */
  username: string;
}

/**
 * The audit log's door for the modules that record their own actions (docs/events.md,
 * "The audit log"). Categories, webhooks, pets and users are recorded by the audit's
 * reactions to their domain events; logins, sessions, API keys and reset requests call
 * this directly.
 */
@Injectable()
export class AuditLog implements BeforeApplicationShutdown {
  private readonly logger = new Logger('Audit');
  private readonly detached = new Set<Promise<void>>();

  constructor(
    private readonly entries: AuditRepository,
    private readonly metrics: MetricsService,
    @InjectTransactionHost() private readonly txHost: TxHost,
  ) {}

  /**
   * Writes the entry in the current transaction: it commits with the change, and a change
   * that rolls back leaves none. Outside a transaction, refused: the entry could outlive a
   * change that failed, or be lost with one that succeeded.
   */
  async record(record: AuditRecord): Promise<void> {
    if (!this.txHost.isTransactionActive()) {
      throw new Error('AuditLog.record() outside a transaction');
    }
    const entry = entryOf(record);
    await this.entries.insert(entry);
    afterCommit(() => this.metrics.countAuditEvent(entry.action, entry.outcome));
  }

  /**
   * Records a refused login on a connection of its own, whatever happens to the caller's
   * work, without waiting for it: a slow or failing database neither delays nor fails the
   * 401, and on the embedded database, whose one connection a caller's transaction holds
   * until it ends, the write simply waits for it. A failure to record is logged.
   */
  recordFailedLogin(login: FailedLogin): void {
    const entry = entryOf({
      action: 'auth.login',
      outcome: 'failure',
      actor: {
        actorUserId: null,
        // A login takes usernames longer than the column, and a character is not a UTF-16 unit.
        actorUsername: [...login.username].slice(0, ACTOR_USERNAME_MAX_LENGTH).join(''),
        actorCredential: 'none',
      },
    });
    const writing = this.entries.insertDetached(entry).then(
      () => this.metrics.countAuditEvent(entry.action, entry.outcome),
      (error: unknown) => this.logger.warn(`Failed login not recorded: ${messageOf(error)}`),
    );
    this.detached.add(writing);
    void writing.finally(() => this.detached.delete(writing));
  }

  /** Lets the failed logins being written finish before the database closes. */
  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all(this.detached);
  }
}

function entryOf(record: AuditRecord): NewAuditEntry {
  return {
    ...currentAuditContext(),
    ...record.request,
    ...record.actor,
    action: record.action,
    outcome: record.outcome ?? 'success',
    targetType: record.target?.type ?? null,
    targetId: record.target?.id ?? null,
    // No field changed (a PUT of the same values): the action is recorded, without changes.
    changes:
      record.changes && Object.keys(record.changes).length > 0
        ? redactSecrets(record.changes)
        : null,
  };
}
