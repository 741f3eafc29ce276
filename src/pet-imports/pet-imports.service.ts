import { setTimeout as delay } from 'node:timers/promises';
import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { InjectTransactionHost } from '@nestjs-cls/transactional';
import { CategoriesService } from '../categories/categories.service.js';
import { ApiException } from '../common/errors/api-exception.js';
import { constraintErrorOf } from '../common/errors/constraint-errors.js';
import { isDatabaseUnavailable, isTransactionConflict } from '../common/errors/database-errors.js';
import { messageOf } from '../common/errors/message-of.js';
import { petImportsConfig, type PetImportsConfig } from '../config/pet-imports.config.js';
import type { TxHost } from '../database/transactions.js';
import { EachJobHandler } from '../events/event-handlers.decorator.js';
import type { JobOutcome } from '../events/outbox-handlers.js';
import { Jobs } from '../events/jobs.js';
import type { PetActor } from '../pets/pet-actor.js';
import { PetsService, type PetRow } from '../pets/pets.service.js';
import {
  checkRecord,
  planOf,
  type CheckedRecord,
  refusalOf,
  type CategoryIds,
  type RowPlan,
  type ValidRow,
} from './import-rows-check.js';
import { readImportFile, type ImportRecord } from './import-rows.js';
import type { PetImport } from './pet-import.entity.js';
import {
  MAX_SHOWN_ERRORS,
  type PetImportCounts,
  type PetImportError,
  type PetImportFormat,
  type PetImportMode,
} from './pet-import-status.js';
import { PetImportsRepository, type PetImportValidation } from './pet-imports.repository.js';

export const PET_IMPORT_QUEUE = 'pets.import';

/** The job that runs an import, start to end (resumed from its cursor when handed over). */
interface PetImportJob {
  type: 'pet_import.run';
  subject: string;
  importId: number;
}

export const petImportNotFound = (id: number | string) =>
  new ApiException('PET_IMPORT_NOT_FOUND', `Import ${id} not found`);

const COUNTED_AS = { create: 'created', update: 'updated', unchanged: 'unchanged' } as const;

/** Attempts of a batch that meets a passing fault, and the wait before the second. */
const BATCH_ATTEMPTS = 3;
const BATCH_RETRY_MS = 500;

/**
 * Catalogue imports (docs/pet-imports.md): a request stores the file and queues the import's
 * job; the job validates every row, then applies the valid ones in batches, each batch one
 * transaction that also moves the import's cursor, through PetsService's own writes (so each
 * pet's history and events are those of a single create or update): the batch's new pets
 * in one `createMany`, its updates one by one.
 */
@Injectable()
export class PetImportsService implements OnModuleDestroy {
  private readonly logger = new Logger('PetImports');
  /** Set at shutdown: a running import stops after its batch, for the next start to resume. */
  private stopping = false;

  constructor(
    private readonly imports: PetImportsRepository,
    private readonly pets: PetsService,
    private readonly categories: CategoriesService,
    private readonly jobs: Jobs,
    @InjectTransactionHost() private readonly txHost: TxHost,
    @Inject(petImportsConfig.KEY) private readonly config: PetImportsConfig,
  ) {}

  // Before the worker's own shutdown, which waits for the running jobs.
  onModuleDestroy(): void {
    this.stopping = true;
  }

  /** Stores the file and queues the import, in one transaction. */
  start(
    file: Buffer,
    format: PetImportFormat,
    options: { mode: PetImportMode; dryRun: boolean },
    actor: PetActor,
  ): Promise<PetImport> {
    return this.txHost.withTransaction(async () => {
      const created = await this.imports.insert({ ...options, format, file, actor });
      const job: PetImportJob = {
        type: 'pet_import.run',
        subject: subjectOf(created.id),
        importId: created.id,
      };
      await this.jobs.enqueue(PET_IMPORT_QUEUE, job);
      return created;
    });
  }

  async findOne(id: number): Promise<PetImport> {
    const found = await this.imports.findById(id);
    if (!found) throw petImportNotFound(id);
    return found;
  }

  /**
   * Cancels an unfinished import: it waits for the batch being applied, whose rows stay; no
   * row after it is applied. A finished import is 409 PET_IMPORT_FINISHED.
   */
  async cancel(id: number): Promise<void> {
    await this.txHost.withTransaction(async () => {
      if (await this.imports.finish(id, 'cancelled')) {
        await this.jobs.cancel(PET_IMPORT_QUEUE, subjectOf(id));
        return;
      }
      const found = await this.imports.findById(id);
      if (!found) throw petImportNotFound(id);
      throw new ApiException('PET_IMPORT_FINISHED', `Import ${id} has ${found.status} already`, {
        status: found.status,
      });
    });
  }

  /**
   * One import, start to end, one at a time per instance. Validation keeps every invalid
   * row's number, so that a run handed over (a restart) applies exactly the rows it left.
   */
  @EachJobHandler(PET_IMPORT_QUEUE, { concurrency: 1 })
  async run(job: PetImportJob): Promise<JobOutcome> {
    const id = job.importId;
    const found = await this.imports.findById(id);
    if (!found || found.finishedAt) return;
    const file = await this.imports.fileOf(id);
    if (!file) return;
    const read = await readImportFile(file, found.format);
    if ('error' in read) {
      await this.imports.fail(id, [read.error]);
      return;
    }
    let current = found;
    let checked: CheckedRecord[] | undefined;
    if (found.status !== 'running') {
      if (!(await this.imports.startValidating(id))) return;
      const validated = await this.validate(found, read.records);
      if (!validated) return;
      ({ found: current, checked } = validated);
    }
    if (current.status !== 'running') return;
    try {
      return await this.apply(current, read.records, checked);
    } catch (error) {
      this.logger.error(`Import ${id} failed: ${messageOf(error)}`);
      await this.imports.fail(id, [
        ...current.errors,
        { row: current.cursor + 1, field: 'file', message: 'the import stopped on an error' },
      ]);
    }
  }

  /**
   * Every row's own checks, then those across rows and against the catalogue: an externalId
   * given twice (the later rows refused), one another pet holds (create mode), a status move
   * the pet does not allow (upsert mode). A dry run ends here, with the counts it would have.
   */
  private async validate(
    found: PetImport,
    records: ImportRecord[],
  ): Promise<{ found: PetImport; checked: CheckedRecord[] } | undefined> {
    const categoryIds = await this.categoryIds();
    const errors: PetImportError[] = [];
    const valid: ValidRow[] = [];
    const checked: CheckedRecord[] = [];
    for (const [index, record] of records.entries()) {
      if (index % ROWS_PER_TURN === ROWS_PER_TURN - 1) await nextTurn();
      const result = checkRecord(record, categoryIds, found.mode);
      checked.push(result);
      errors.push(...result.errors);
      if (result.valid) valid.push(result.valid);
    }
    const firstRows = new Map<string, number>();
    const existing = await this.existingPets(valid);
    const counts: PetImportCounts = { ...found.counts, rows: records.length };
    const accepted = valid.filter(({ row, dto }) => {
      const externalId = dto.externalId ?? undefined;
      if (externalId !== undefined) {
        const first = firstRows.get(externalId);
        if (first !== undefined) {
          errors.push({ row, field: 'externalId', message: `externalId is in row ${first} too` });
          return false;
        }
        firstRows.set(externalId, row);
      }
      const pet = externalId === undefined ? undefined : existing.get(externalId);
      if (found.mode === 'create') {
        if (!pet) return true;
        errors.push({
          row,
          field: 'externalId',
          message: 'another pet already has this externalId',
        });
        return false;
      }
      const plan = planOf(dto, pet);
      const refusal = refusalOf(plan, row);
      if (refusal) {
        errors.push(refusal);
        return false;
      }
      if (found.dryRun) counts[COUNTED_AS[plan.kind]] += 1;
      return true;
    });
    if (found.dryRun && found.mode === 'create') counts.created = accepted.length;
    errors.sort((a, b) => a.row - b.row);
    const invalidRows = [...new Set(errors.map((error) => error.row))];
    const outcome: PetImportValidation = {
      status: found.dryRun ? 'succeeded' : 'running',
      counts: { ...counts, valid: accepted.length, invalid: invalidRows.length },
      invalidRows,
      errors: errors.slice(0, MAX_SHOWN_ERRORS),
      finishedAt: found.dryRun ? new Date() : null,
    };
    if (!(await this.imports.validated(found.id, outcome))) return undefined;
    return { found: { ...found, ...outcome }, checked };
  }

  private async existingPets(rows: ValidRow[]): Promise<Map<string, PetRow>> {
    const externalIds = [
      ...new Set(
        rows.flatMap(({ dto }) => (typeof dto.externalId === 'string' ? [dto.externalId] : [])),
      ),
    ];
    const pets = await this.pets.findByExternalIds(externalIds);
    return new Map(pets.map((pet) => [pet.externalId!, pet]));
  }

  /**
   * The valid rows after the cursor, a batch per transaction that moves the cursor past it.
   * `checked`: this run's validation of every row, applied as it is (each row's category
   * resolved to its id then, the foreign key checking it at write time). Without it (a run
   * resumed after a restart) the rows after the cursor are checked here, once; one that no
   * longer passes (its category renamed since) is kept as an error. A batch that fails (a
   * change made since validation: a category deleted, an adoption opened) is applied again
   * row by row, the rows that still fail kept as errors.
   */
  private async apply(
    found: PetImport,
    records: ImportRecord[],
    checked: CheckedRecord[] | undefined,
  ): Promise<JobOutcome> {
    const { id } = found;
    const invalid = new Set(found.invalidRows);
    const categoryIds = checked ? undefined : await this.categoryIds();
    const checkedOf = (record: ImportRecord) =>
      checked?.[record.row - 1] ?? checkRecord(record, categoryIds!, found.mode);
    let progress: Progress = { counts: { ...found.counts }, errors: [...found.errors] };
    let cursor = found.cursor;
    while (cursor < records.length) {
      if (this.stopping) return { retryAt: new Date() };
      const end = Math.min(cursor + this.config.batchRows, records.length);
      const batch: ValidRow[] = [];
      const late: PetImportError[] = [];
      for (const record of records.slice(cursor, end)) {
        if (invalid.has(record.row)) continue;
        const result = checkedOf(record);
        if (result.valid) batch.push(result.valid);
        else late.push(...result.errors);
      }
      const start = withErrors(progress, late);
      const next = await this.retried(() => this.applyBatch(found, batch, end, start)).catch(
        (error: unknown) =>
          this.refusedOf(error)
            ? this.applyOneByOne(found, batch, end, start)
            : Promise.reject(error as Error),
      );
      if (!next) return;
      progress = next;
      cursor = end;
    }
    await this.imports.finish(id, 'succeeded');
  }

  private async categoryIds(): Promise<CategoryIds> {
    const all = await this.categories.findAll();
    return new Map(all.map((category) => [category.name.toLowerCase(), Number(category.id)]));
  }

  /** Undefined when the import was cancelled meanwhile: nothing of the batch is applied. */
  private applyBatch(
    found: PetImport,
    batch: ValidRow[],
    end: number,
    progress: Progress,
  ): Promise<Progress | undefined> {
    return this.txHost.withTransaction(async () => {
      if ((await this.imports.lockStatus(found.id)) !== 'running') return undefined;
      const existing = found.mode === 'upsert' ? await this.existingPets(batch) : undefined;
      const counts = { ...progress.counts };
      const creates: ValidRow['dto'][] = [];
      for (const { dto } of batch) {
        const plan = planOf(dto, existing?.get(dto.externalId ?? ''));
        if (plan.kind === 'create') creates.push(dto);
        else counts[await this.applyChange(plan, found.actor)] += 1;
      }
      await this.pets.createMany(creates, found.actor);
      counts.created += creates.length;
      await this.imports.advance(found.id, end, counts, progress.errors);
      return { counts, errors: progress.errors };
    });
  }

  /** Each row in its own transaction, with the cursor; a row refused is kept as an error. */
  private async applyOneByOne(
    found: PetImport,
    batch: ValidRow[],
    end: number,
    progress: Progress,
  ): Promise<Progress | undefined> {
    let current = progress;
    for (const [index, { row, dto }] of batch.entries()) {
      const cursor = index === batch.length - 1 ? end : batch[index + 1].row - 1;
      const next = await this.retried(() =>
        this.applyBatch(found, [{ row, dto }], cursor, current),
      ).catch(async (error: unknown) => {
        const refusal = this.refusedOf(error);
        if (!refusal) throw error;
        const failed = withErrors(current, [{ row, ...fieldErrorOf(refusal) }]);
        await this.txHost.withTransaction(() =>
          this.imports.advance(found.id, cursor, failed.counts, failed.errors),
        );
        return failed;
      });
      if (!next) return undefined;
      current = next;
    }
    if (batch.length === 0) {
      await this.txHost.withTransaction(() =>
        this.imports.advance(found.id, end, current.counts, current.errors),
      );
    }
    return current;
  }

  /**
   * A batch is one transaction, rolled back whole by a fault the database gets over (its
   * statement time-out on a loaded server, a lost connection, a deadlock): applied again,
   * after 0.5 s then 1 s, before the import stops on it.
   */
  private async retried<T>(apply: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await apply();
      } catch (error) {
        const passing = isDatabaseUnavailable(error) || isTransactionConflict(error);
        if (!passing || attempt === BATCH_ATTEMPTS) throw error;
        this.logger.warn(`A batch met a fault (${messageOf(error)}); applying it again`);
        await delay(BATCH_RETRY_MS * 2 ** (attempt - 1));
      }
    }
  }

  /** What a single write would have answered for this error, or undefined for a fault. */
  private refusedOf(error: unknown): ApiException | undefined {
    return error instanceof ApiException ? error : constraintErrorOf(error);
  }

  /** An upsert's row for a pet that exists: written through `update`, as a PUT would. */
  private async applyChange(
    plan: Exclude<RowPlan, { kind: 'create' }>,
    actor: PetActor,
  ): Promise<'updated' | 'unchanged'> {
    if (plan.kind === 'unchanged') return 'unchanged';
    await this.pets.update(plan.pet.id, plan.changes, actor);
    return 'updated';
  }
}

/**
 * Rows validated between two turns of the event loop: the job shares its process with the
 * API, and 100,000 rows checked in one go held every request for seconds (10 s and more on
 * a loaded machine: the status read timed out).
 */
const ROWS_PER_TURN = 1_000;

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

const subjectOf = (id: number) => `pet-import:${id}`;

/** What an import has applied so far, written with its cursor. */
interface Progress {
  counts: PetImportCounts;
  errors: PetImportError[];
}

/** `progress` with rows refused while applying: invalid, no longer valid, their errors kept. */
function withErrors(progress: Progress, refused: PetImportError[]): Progress {
  if (refused.length === 0) return progress;
  const rows = new Set(refused.map((error) => error.row)).size;
  const { counts } = progress;
  return {
    counts: { ...counts, valid: counts.valid - rows, invalid: counts.invalid + rows },
    errors: [...progress.errors, ...refused].slice(0, MAX_SHOWN_ERRORS),
  };
}

/**
 * A refused write as a row's error: the field it names (`details.field`, as the 409s carry
 * it; else `row`) with its message, or a validation error's first field as the 400 lists it
 * (the field's own message, as validation words a row's errors).
 */
function fieldErrorOf(error: ApiException): { field: string; message: string } {
  const field = error.details?.field;
  if (typeof field === 'string') return { field, message: error.message };
  const fields = error.details?.fields as { field: string; message: string }[] | undefined;
  if (fields?.[0]) return { field: fields[0].field, message: fields[0].message };
  const onStatus =
    error.code === 'PET_HAS_OPEN_ADOPTION' || error.code === 'INVALID_STATUS_TRANSITION';
  return { field: onStatus ? 'status' : 'row', message: error.message };
}
