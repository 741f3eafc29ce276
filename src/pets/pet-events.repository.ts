import { Injectable } from '@nestjs/common';
import { InjectTransactionHost } from '@nestjs-cls/transactional';
import type { TxHost } from '../database/transactions.js';
import { petSubject, type PetEvent } from './pet-events.js';
import { historyPageQuery } from './sql/pet-events.sql.js';

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
}
