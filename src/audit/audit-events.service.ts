import { Inject, Injectable, Logger } from '@nestjs/common';
import { deleteInBatches } from '../common/scheduling/delete-in-batches.js';
import { auditConfig, type AuditConfig } from '../config/audit.config.js';
import { RecurringJob } from '../events/event-handlers.decorator.js';
import { CursorSigner } from '../common/dto/page-cursor.js';
import { decodeAuditCursor, encodeAuditCursor } from './audit-cursor.js';
import {
  AuditRepository,
  type AuditEntryRow,
  type AuditFilters,
  type LoginCounts,
} from './audit.repository.js';
import type { AuditRangeQueryDto, ListAuditEventsQueryDto } from './dto/audit-events-query.dto.js';

const PURGE_INTERVAL_MS = 60 * 60_000;
// Deleted per statement: a year's backlog goes in short statements, never one long lock.
const PURGE_BATCH = 10_000;
// Read per statement by the export: its memory stays that of one batch, however long the range.
const EXPORT_BATCH = 1_000;

export interface AuditPage {
  entries: AuditEntryRow[];
  limit: number;
  nextCursor?: string;
}

const dateOf = (timestamp?: string) => (timestamp === undefined ? undefined : new Date(timestamp));

/**
 * Reading the audit log, and its retention: a recurring job purges expired entries hourly, on
 * one instance at a time (docs/jobs.md).
 */
@Injectable()
export class AuditEventsService {
  private readonly logger = new Logger('Audit');

  constructor(
    private readonly entries: AuditRepository,
    @Inject(auditConfig.KEY) private readonly config: AuditConfig,
    private readonly cursors: CursorSigner,
  ) {}

  /** Newest first; a page one entry longer than asked tells whether another follows. */
  async list(query: ListAuditEventsQueryDto): Promise<AuditPage> {
    const beforeId =
      query.cursor === undefined
        ? undefined
        : decodeAuditCursor(this.cursors, query.cursor).beforeId;
    const filters: AuditFilters = {
      action: query.action,
      actorId: query.actorId,
      targetType: query.targetType,
      targetId: query.targetId,
      since: dateOf(query.since),
      until: dateOf(query.until),
    };
    const rows = await this.entries.findPage(filters, query.limit + 1, beforeId);
    const entries = rows.slice(0, query.limit);
    const last = entries.at(-1);
    return {
      entries,
      limit: query.limit,
      nextCursor:
        rows.length > query.limit && last
          ? encodeAuditCursor(this.cursors, { beforeId: last.id })
          : undefined,
    };
  }

  /** The entries of the range, oldest first, read in batches as the consumer asks for them. */
  async *export(query: AuditRangeQueryDto): AsyncGenerator<AuditEntryRow> {
    const range = { since: dateOf(query.since), until: dateOf(query.until) };
    let afterId = 0;
    for (;;) {
      const batch = await this.entries.findBatch(range, afterId, EXPORT_BATCH);
      yield* batch;
      const last = batch.at(-1);
      if (!last || batch.length < EXPORT_BATCH) return;
      afterId = last.id;
    }
  }

  /** Logins per UTC day since `since`, for the activity statistics. */
  loginsPerDay(since: Date): Promise<LoginCounts[]> {
    return this.entries.countLoginsPerDay(since);
  }

  /** Deletes the entries older than the retention period; how many. */
  purgeExpired(now = new Date()): Promise<number> {
    const before = new Date(now.getTime() - this.config.retentionMs);
    return deleteInBatches((limit) => this.entries.deleteOlderThan(before, limit), PURGE_BATCH);
  }

  /** A failure is logged and retried by the job engine. */
  @RecurringJob('audit.purge', PURGE_INTERVAL_MS)
  async purge(): Promise<void> {
    const removed = await this.purgeExpired();
    if (removed > 0) this.logger.log(`Removed ${removed} audit entries past their retention`);
  }
}
