import { CursorSigner } from '../common/dto/page-cursor.js';
import { Injectable } from '@nestjs/common';
import { paginationOf, type Pagination } from '../common/dto/pagination-query.dto.js';
import type { Principal } from '../common/types/principal.js';
import type { PetHistoryQueryDto } from './dto/pet-history.dto.js';
import type { PetEvent } from './pet-events.js';
import { decodeHistoryCursor, encodeHistoryCursor } from './pet-history-cursor.js';
import { PetEventsRepository, type PetDayCounts } from './pet-events.repository.js';
import { petEventData } from './pet.mapper.js';
import { petNotFound } from './pet-not-found.js';

interface PetHistoryPage {
  events: PetEvent[];
  pagination: Pagination;
}

/** A pet's history for the API: the pets' change log, which every write adds to. */
@Injectable()
export class PetHistoryService {
  constructor(
    private readonly petEvents: PetEventsRepository,
    private readonly cursors: CursorSigner,
  ) {}

  /**
   * Newest first. Any caller may read an existing pet's history; a deleted pet's is an
   * admin's only, and is reported to anyone else as missing, like a pet never created.
   */
  async list(petId: number, query: PetHistoryQueryDto, caller: Principal): Promise<PetHistoryPage> {
    const cursor = query.cursor
      ? decodeHistoryCursor(this.cursors, query.cursor, { petId, offset: query.offset })
      : undefined;
    const offset = cursor?.offset ?? query.offset ?? 0;
    const { events, total, petExists } = await this.petEvents.findHistoryPage(petId, {
      limit: query.limit,
      offset,
      beforeSequence: cursor?.sequence,
    });
    // A pet written before the history existed has none yet: an empty history, not a 404.
    if (!petExists && (total === 0 || caller.role !== 'admin')) throw petNotFound(petId);
    const pagination = paginationOf(query.limit, offset, events.length, total);
    const last = events.at(-1);
    if (pagination.hasMore && last) {
      pagination.nextCursor = encodeHistoryCursor(this.cursors, {
        petId,
        sequence: last.sequence,
        offset: offset + events.length,
      });
    }
    return { events, pagination };
  }

  /** An event's `data` as webhooks send it: the pet as the API showed it, plus a move's from/to. */
  webhookData(event: PetEvent): Record<string, unknown> {
    return petEventData(event);
  }

  /** Pets created and sold per UTC day since `since` (the activity statistics). */
  countPerDay(since: Date): Promise<PetDayCounts[]> {
    return this.petEvents.countPerDay(since);
  }
}
