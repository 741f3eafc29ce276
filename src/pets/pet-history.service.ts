import { Injectable, Logger } from '@nestjs/common';
import { InjectTransactionHost } from '@nestjs-cls/transactional';
import { paginationOf, type Pagination } from '../common/dto/pagination-query.dto.js';
import type { Principal } from '../common/types/principal.js';
import type { TxHost } from '../database/transactions.js';
import type { PetHistoryQueryDto } from './dto/pet-history.dto.js';
import type { PetEventPublisher } from './pet-events.js';
import { decodeHistoryCursor, encodeHistoryCursor } from './pet-history-cursor.js';
import { toPetEvent } from './pet.mapper.js';
import { PetsRepository, type PetEventRow } from './pets.repository.js';
import { petNotFound } from './pet-not-found.js';
import { stackOf } from '../common/errors/message-of.js';

interface PetHistoryPage {
  events: PetEventRow[];
  pagination: Pagination;
}

/**
 * The pets' change log, which PetsService writes with every change: a pet's history for
 * the API, and, for the webhooks module, the outbox (`publishPending`) and a nudge when
 * something was recorded (`onRecorded`).
 */
@Injectable()
export class PetHistoryService {
  private readonly logger = new Logger(PetHistoryService.name);
  private readonly listeners: (() => void)[] = [];

  constructor(
    private readonly pets: PetsRepository,
    @InjectTransactionHost() private readonly txHost: TxHost,
  ) {}

  /**
   * Newest first. Any caller may read an existing pet's history; a deleted pet's is an
   * admin's only, and is reported to anyone else as missing, like a pet never created.
   */
  async list(petId: number, query: PetHistoryQueryDto, caller: Principal): Promise<PetHistoryPage> {
    const cursor = query.cursor
      ? decodeHistoryCursor(query.cursor, { petId, offset: query.offset })
      : undefined;
    const offset = cursor?.offset ?? query.offset ?? 0;
    const { events, total, petExists } = await this.pets.findHistoryPage(petId, {
      limit: query.limit,
      offset,
      beforeSequence: cursor?.sequence,
    });
    // A pet written before the history existed has none yet: an empty history, not a 404.
    if (!petExists && (total === 0 || caller.role !== 'admin')) throw petNotFound(petId);
    const pagination = paginationOf(query.limit, offset, events.length, total);
    const last = events.at(-1);
    if (pagination.hasMore && last) {
      pagination.nextCursor = encodeHistoryCursor({
        petId,
        sequence: last.sequence,
        offset: offset + events.length,
      });
    }
    return { events, pagination };
  }

  /**
   * Hands the oldest unpublished events (up to `limit`, oldest first) to `publisher` and
   * marks them published, in one transaction: when the publisher throws, they stay
   * unpublished. One instance publishes at a time (a transaction-level advisory lock;
   * another instance gets 0 at once), so a pet's events are handed over in their order.
   * Returns how many were published.
   */
  async publishPending(publisher: PetEventPublisher, limit = 100): Promise<number> {
    return this.txHost.withTransaction(async () => {
      if (!(await this.pets.lockPublishing())) return 0;
      const rows = await this.pets.findUnpublished(limit);
      if (rows.length === 0) return 0;
      await publisher(rows.map(toPetEvent));
      await this.pets.markPublished(rows.map((row) => row.sequence));
      return rows.length;
    });
  }

  /**
   * Calls `listener` after each write that recorded events has committed, so that a
   * publisher need not wait for its next poll. It runs on the request's path: it should
   * only schedule work. What it throws is logged.
   */
  onRecorded(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** For PetsService, once a write that recorded events has committed. */
  notifyRecorded(): void {
    for (const listener of this.listeners) {
      try {
        listener();
      } catch (error) {
        this.logger.error('A listener of recorded pet events failed', stackOf(error));
      }
    }
  }
}
