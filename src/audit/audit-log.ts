import { Injectable } from '@nestjs/common';
import { InjectTransactionHost } from '@nestjs-cls/transactional';
import type { RequestOrigin } from '../common/http/request-origin.js';
import { afterCommit, GatheredStatements, type TxHost } from '../database/transactions.js';
import { MetricsService } from '../metrics/metrics.service.js';
import {
  redactSecrets,
  type AuditAction,
  type AuditChanges,
  type AuditOutcome,
  type AuditTargetType,
} from './audit-actions.js';
import { currentAuditContext, type AuditContext } from './audit-context.js';
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
  request?: RequestOrigin;
}

/**
 * Writes the audit's entries, for its reactions to the domain events (audit-reactions.ts):
 * no other module calls it (docs/events.md, "The audit log").
 */
@Injectable()
export class AuditLog {
  constructor(
    private readonly entries: AuditRepository,
    private readonly metrics: MetricsService,
    private readonly statements: GatheredStatements,
    @InjectTransactionHost() private readonly txHost: TxHost,
  ) {}

  /**
   * Makes the entry, of the request at hand, and writes it in the current transaction, with
   * the transaction's other entries and outbox rows in one statement just before it commits
   * (nothing in a transaction reads its entries back): it commits with the change, and a
   * change that rolls back leaves none, while an entry that cannot be written fails the
   * change. Outside a transaction, refused: the entry could outlive a change that failed, or
   * be lost with one that succeeded.
   */
  record(record: AuditRecord): void {
    if (!this.txHost.isTransactionActive()) {
      throw new Error('AuditLog.record() outside a transaction');
    }
    const entry = entryOf(record);
    this.statements
      .gather<NewAuditEntry[]>(
        this,
        () => [],
        (gathered) => this.entries.insertStatement(gathered),
      )
      .push(entry);
    afterCommit(() => this.metrics.countAuditEvent(entry.action, entry.outcome));
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
