import { Injectable } from '@nestjs/common';
import { InjectTransactionHost } from '@nestjs-cls/transactional';
import { In } from 'typeorm';
import type { TxHost } from '../database/transactions.js';
import { PetImport } from './pet-import.entity.js';
import {
  UNFINISHED_STATUSES,
  type PetImportCounts,
  type PetImportError,
  type PetImportStatus,
} from './pet-import-status.js';

export type NewPetImport = Pick<PetImport, 'mode' | 'dryRun' | 'format' | 'file' | 'actor'>;

/** The outcome of a validation, written at once. */
export interface PetImportValidation {
  status: PetImportStatus;
  counts: PetImportCounts;
  invalidRows: number[];
  errors: PetImportError[];
  /** Set when validation ends the import (a dry run). */
  finishedAt: Date | null;
}

/** `pet_imports`: an import's file, state and durable cursor. */
@Injectable()
export class PetImportsRepository {
  constructor(@InjectTransactionHost() private readonly txHost: TxHost) {}

  private get repo() {
    return this.txHost.tx.getRepository(PetImport);
  }

  async insert(fields: NewPetImport): Promise<PetImport> {
    return this.repo.save(
      this.repo.create({
        ...fields,
        status: 'queued',
        counts: { rows: 0, valid: 0, invalid: 0, created: 0, updated: 0, unchanged: 0 },
        cursor: 0,
        invalidRows: [],
        errors: [],
        finishedAt: null,
      }),
    );
  }

  /** Without its file. */
  async findById(id: number): Promise<PetImport | undefined> {
    return (await this.repo.findOneBy({ id })) ?? undefined;
  }

  async fileOf(id: number): Promise<Buffer | undefined> {
    const [row] = await this.txHost.tx.query<{ file: Uint8Array | null }[]>(
      'SELECT file FROM pet_imports WHERE id = $1',
      [id],
    );
    // pg answers a Buffer, the embedded database a Uint8Array.
    if (!row?.file) return undefined;
    return Buffer.isBuffer(row.file) ? row.file : Buffer.from(row.file);
  }

  /** Locks the import's row for a batch (a cancel waits for it) and reads its status. */
  async lockStatus(id: number): Promise<PetImportStatus | undefined> {
    const [row] = await this.txHost.tx.query<{ status: PetImportStatus }[]>(
      'SELECT status FROM pet_imports WHERE id = $1 FOR UPDATE',
      [id],
    );
    return row?.status;
  }

  /** Moves a queued import (or one whose validation a restart cut short) to `validating`. */
  async startValidating(id: number): Promise<boolean> {
    const { affected } = await this.repo.update(
      { id, status: In(['queued', 'validating']) },
      { status: 'validating' },
    );
    return affected === 1;
  }

  /** Unless it was cancelled meanwhile. */
  async validated(id: number, outcome: PetImportValidation): Promise<boolean> {
    const { affected } = await this.repo.update(
      { id, status: 'validating' },
      outcome.finishedAt ? { ...outcome, file: null } : outcome,
    );
    return affected === 1;
  }

  /** In the transaction of the rows up to `cursor`, under the row's lock. */
  async advance(
    id: number,
    cursor: number,
    counts: PetImportCounts,
    errors: PetImportError[],
  ): Promise<void> {
    await this.repo.update({ id }, { cursor, counts, errors });
  }

  /** Ends an unfinished import; its file is no longer needed. */
  async finish(id: number, status: 'succeeded' | 'failed' | 'cancelled'): Promise<boolean> {
    const { affected } = await this.repo.update(
      { id, status: In([...UNFINISHED_STATUSES]) },
      { status, finishedAt: new Date(), file: null },
    );
    return affected === 1;
  }

  /** Records why the import could not go on (its file unreadable, say). */
  async fail(id: number, errors: PetImportError[]): Promise<void> {
    await this.repo.update(
      { id, status: In([...UNFINISHED_STATUSES]) },
      { status: 'failed', errors, finishedAt: new Date(), file: null },
    );
  }
}
