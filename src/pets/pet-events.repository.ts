import { Injectable } from '@nestjs/common';
import { InjectTransactionHost } from '@nestjs-cls/transactional';
import type { TxHost } from '../database/transactions.js';
import { petSubject, type PetEvent } from './pet-events.js';
import { historyPageQuery } from './sql/pet-events.sql.js';

/** Pets created and sold on one UTC day (`YYYY-MM-DD`). */
export interface PetDayCounts {
  date: string;
  petsCreated: number;
  petsSold: number;
}

/**
 * The pets' change log as a read model: a pet's history. The events are written by the
 * writes themselves (PetsRepository, sql/pet-events.sql.ts), never here.
 */
@Injectable()
export class PetEventsRepository {
  constructor(@InjectTransactionHost() private readonly txHost: TxHost) {}

  /** A page of the pet's history, newest first, its total and whether the pet exists now. */
  async findHistoryPage(
    petId: number,
    page: { limit: number; offset: number; beforeSequence?: number },
  ): Promise<{ events: PetEvent[]; total: number; petExists: boolean }> {
    const { sql, params } = historyPageQuery(petId, page);
    const [row] = await this.txHost.tx.query<
      { total: number; petExists: boolean; events: Omit<PetEvent, 'subject'>[] }[]
    >(sql, params);
    const events = row.events.map((event) => ({
      ...event,
      subject: petSubject(petId),
      occurredAt: new Date(event.occurredAt).toISOString(),
    }));
    return { events, total: row.total, petExists: row.petExists };
  }

  /** Creations and moves to sold per UTC day since `since`, for the days that had any. */
  countPerDay(since: Date): Promise<PetDayCounts[]> {
    return this.txHost.tx.query<PetDayCounts[]>(
      `SELECT to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS date,
              count(*) FILTER (WHERE type = 'pet.created')::int AS "petsCreated",
              count(*) FILTER (WHERE type = 'pet.status_changed' AND status_to = 'sold')::int
                AS "petsSold"
         FROM pet_events
        WHERE occurred_at >= $1 AND type IN ('pet.created', 'pet.status_changed')
        GROUP BY 1`,
      [since],
    );
  }
}
