import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { InjectTransactionHost } from '@nestjs-cls/transactional';
import { CursorSigner } from '../common/dto/page-cursor.js';
import { ApiException } from '../common/errors/api-exception.js';
import {
  preconditionFailed,
  satisfiesIfMatch,
  type IfMatch,
} from '../common/http/conditional-requests.js';
import type { Principal } from '../common/types/principal.js';
import { adoptionsConfig, type AdoptionsConfig } from '../config/adoptions.config.js';
import type { TxHost } from '../database/transactions.js';
import { DomainEvents } from '../events/domain-events.js';
import { BatchJobHandler, OnDomainEvent } from '../events/event-handlers.decorator.js';
import type { BatchJobOutcome } from '../events/outbox-handlers.js';
import { Jobs } from '../events/jobs.js';
import { actorOf, NO_ACTOR, type PetActor } from '../pets/pet-actor.js';
import { PetHoldsService } from '../pets/pet-holds.service.js';
import { PetsService } from '../pets/pets.service.js';
import type { UserDeleting } from '../users/user-events.js';
import { UserLookupService } from '../users/user-lookup.service.js';
import { decodeAdoptionCursor, encodeAdoptionCursor } from './adoption-cursor.js';
import { adoptionVersionTag } from './adoption.mapper.js';
import { AdoptionMails } from './adoption-mails.js';
import { adoptionEvent, adoptionSubject, EVENT_OF_MOVE } from './adoption-events.js';
import {
  allowedNextStatuses,
  MOVES,
  type AdoptionMove,
  type RequestedMove,
  type AdoptionStatus,
} from './adoption-status.js';
import {
  AdoptionsRepository,
  type AdoptionChange,
  type AdoptionRow,
  type AdoptionState,
} from './adoptions.repository.js';
import type { AdoptionMoveDto, ExtendAdoptionDto } from './dto/adoption-move.dto.js';
import type { CreateAdoptionDto } from './dto/create-adoption.dto.js';
import type { ListAdoptionsQueryDto } from './dto/list-adoptions-query.dto.js';

/** The queue of the holds' expiries (docs/jobs.md); its name is kept in the outbox rows. */
export const HOLD_EXPIRY_QUEUE = 'adoptions.hold-expiry';

/**
 * A failing expiry is retried this long after its job was queued, past OUTBOX_MAX_ATTEMPTS,
 * so that a held pet is not kept held by a failure: longer than the longest hold
 * (ADOPTION_HOLD_MINUTES, at most a year) by more than a month.
 */
const HOLD_EXPIRY_RETRY_FOR_MS = 400 * 24 * 3_600_000;

/**
 * Holds ended per transaction, in a few set-based statements: 10,000 due at once end in two
 * hundred transactions rather than 10,000 (docs/performance.md, A2). A batch's cost is mostly
 * its statements, whatever its size: smaller batches ended fewer holds a second on a loaded
 * machine (25: 10,000 in 64.6 s, past the minute).
 */
const HOLD_EXPIRY_BATCH = 50;

/**
 * Holds ended per second on an instance, at most: 10,000 due at once end in about 45 s of the
 * 60 s the contract allows, a batch every 227 ms, so that requests meanwhile find the process
 * mostly idle rather than busy with the burst (docs/performance.md, A2). A batch took about
 * 160 ms on a loaded machine: within its share, so the pace holds there too.
 */
const HOLD_EXPIRY_PER_SECOND = 220;

/**
 * Batches running at once on an instance: one, holding one pooled connection, so that a
 * burst of expiries leaves the rest of the pool and most of the CPU to requests.
 */
const HOLD_EXPIRY_CONCURRENCY = 1;

/** What an expiry does to the pet (the adoption's machine, MOVES). */
const EXPIRY_PET_MOVE = MOVES.expire.pet!;

/** The job that ends a hold: it does nothing once the adoption is decided or its hold moved. */
interface HoldExpiry {
  type: 'adoption.hold_expiry';
  subject: string;
  adoptionId: number;
  holdExpiresAt: string;
}

export interface AdoptionPage {
  adoptions: AdoptionRow[];
  limit: number;
  nextCursor?: string;
}

/** Also ParseIdPipe's answer on the adoption routes, and a customer's for someone else's. */
export const adoptionNotFound = (id: number | string) =>
  new ApiException('ADOPTION_NOT_FOUND', `Adoption ${id} not found`);

const isStaff = (principal: Principal) => principal.role !== 'customer';

/** Who makes a move, and the hold the adoption has after it. */
interface MoveBy {
  actor: PetActor;
  byStaff: boolean;
  reason?: string;
  holdExpiresAt: Date | null;
}

/** What a move writes on the adoption, which ends in `status`. */
const changeOf = (status: AdoptionStatus, by: MoveBy): AdoptionChange => ({
  status,
  holdExpiresAt: by.holdExpiresAt,
  decidedById: by.byStaff && by.actor.userId !== null ? by.actor.userId : undefined,
  reason: by.reason,
});

/** The reason of the cancel that a deletion of the adopter's account makes. */
const ADOPTER_DELETED = 'The adopter’s account was deleted';

const petNotAvailable = (status: string) =>
  new ApiException('PET_NOT_AVAILABLE', `The pet is ${status}, not available`, { status });

function invalidTransition(from: AdoptionStatus, move: AdoptionMove): ApiException {
  const to = MOVES[move].to ?? from;
  return new ApiException(
    'INVALID_ADOPTION_TRANSITION',
    `An adoption cannot move from ${from} to ${to} (${move})`,
    { from, to, allowed: allowedNextStatuses(from) },
  );
}

/**
 * Adoptions (docs/adoptions.md): a request holds the pet (`pending`), and each move changes
 * the adoption and its pet in one transaction, through the pets module's service, publishing
 * its event in it. A hold ends by a job queued with it.
 */
@Injectable()
export class AdoptionsService implements OnModuleInit {
  constructor(
    private readonly adoptions: AdoptionsRepository,
    private readonly pets: PetsService,
    private readonly petHolds: PetHoldsService,
    private readonly users: UserLookupService,
    private readonly events: DomainEvents,
    private readonly jobs: Jobs,
    private readonly mails: AdoptionMails,
    private readonly cursors: CursorSigner,
    @InjectTransactionHost() private readonly txHost: TxHost,
    @Inject(adoptionsConfig.KEY) private readonly config: AdoptionsConfig,
  ) {}

  /** A customer sees its own only; staff all, by the filters. */
  async list(query: ListAdoptionsQueryDto, principal: Principal): Promise<AdoptionPage> {
    if (query.adopterId !== undefined && !isStaff(principal)) {
      throw ApiException.forbidden('Only staff filter by adopterId');
    }
    const beforeId =
      query.cursor === undefined
        ? undefined
        : decodeAdoptionCursor(this.cursors, query.cursor).beforeId;
    const rows = await this.adoptions.findPage(
      {
        statuses: query.status,
        petId: query.petId,
        adopterId: isStaff(principal) ? query.adopterId : principal.userId,
      },
      query.limit + 1,
      beforeId,
    );
    const adoptions = rows.slice(0, query.limit);
    const last = adoptions.at(-1);
    return {
      adoptions,
      limit: query.limit,
      nextCursor:
        rows.length > query.limit && last
          ? encodeAdoptionCursor(this.cursors, { beforeId: last.id })
          : undefined,
    };
  }

  async findOne(id: number, principal: Principal): Promise<AdoptionRow> {
    const row = await this.adoptions.findById(id);
    if (!row || (!isStaff(principal) && row.adopterId !== principal.userId)) {
      throw adoptionNotFound(id);
    }
    return row;
  }

  /** GET /pets/{id} shows the pet's open adoption. */
  onModuleInit(): void {
    this.petHolds.register((petId) => this.adoptions.findOpenOfPet(petId));
  }

  /**
   * The pet moves available → pending, then the adoption is inserted with its hold and the
   * hold's expiry queued: all or nothing. Of two requests for one pet, the second finds it
   * pending (409 PET_NOT_AVAILABLE).
   */
  async request(dto: CreateAdoptionDto, principal: Principal): Promise<AdoptionRow> {
    if (dto.adopterId !== undefined && !isStaff(principal)) {
      throw ApiException.forbidden('Only staff request an adoption for someone else');
    }
    const adopterId = dto.adopterId ?? principal.userId;
    if (dto.adopterId !== undefined) await this.assertCustomer(dto.adopterId);
    return this.txHost.withTransaction(async () => {
      const { open, id } = await this.adoptions.startRequest(adopterId);
      if (open >= this.config.openPerAdopter) {
        throw new ApiException(
          'ADOPTION_LIMIT_REACHED',
          `An adopter may have at most ${this.config.openPerAdopter} open adoptions`,
          { limit: this.config.openPerAdopter },
        );
      }
      // The id comes first, for the pet's history entry; the pet moves before the adoption
      // is written (the trigger refuses a move of a pet with an open adoption). A pet that
      // does not move is read only then, for the answer (404, or the status it is in).
      const moved = await this.pets.moveStatus(dto.petId, 'available', 'pending', {
        ...actorOf(principal),
        adoptionId: id,
      });
      if (!moved) throw petNotAvailable((await this.pets.findOne(dto.petId)).status);
      const holdExpiresAt = new Date(Date.now() + this.config.holdMs);
      const row = await this.adoptions.insert({
        id,
        petId: dto.petId,
        adopterId,
        message: dto.message ?? null,
        holdExpiresAt,
      });
      await this.queueExpiry(id, holdExpiresAt);
      await this.events.publish(
        adoptionEvent('adoption.requested', row, {
          userId: principal.userId,
          byStaff: isStaff(principal),
        }),
      );
      return row;
    });
  }

  /**
   * Makes `move` (not `expire`) on the adoption. A customer reaches only its own (others:
   * 404); the route admits only staff to the staff's moves. With `ifMatch`, only at one of
   * its versions (412 otherwise).
   */
  move(
    id: number,
    move: RequestedMove,
    dto: AdoptionMoveDto | ExtendAdoptionDto,
    principal: Principal,
    ifMatch?: IfMatch,
  ): Promise<AdoptionRow> {
    const by = { actor: actorOf(principal), byStaff: isStaff(principal), reason: dto.reason };
    const to = MOVES[move].to;
    return this.txHost.withTransaction(async () => {
      // Without If-Match, a move to another status (not extend, whose hold follows from the
      // old one) is one conditional update, which locks the row as `lock` does; a move it
      // refuses goes the long way, which says why (404, 409).
      if (!ifMatch && to) {
        const moving = { ...by, holdExpiresAt: this.holdAfter(move, 0, null) };
        const updated = await this.adoptions.update(id, changeOf(to, moving), {
          from: MOVES[move].from,
          adopterId: moving.byStaff ? undefined : principal.userId,
        });
        if (updated) return this.followUpdate(updated, move, moving);
      }
      const state = await this.adoptions.lock(id);
      if (!state || (!isStaff(principal) && state.adopterId !== principal.userId)) {
        throw adoptionNotFound(id);
      }
      if (ifMatch) {
        const current = adoptionVersionTag(await this.read(id));
        if (!satisfiesIfMatch(ifMatch, current)) throw preconditionFailed(current);
      }
      const hours = 'hours' in dto ? dto.hours : 0;
      return this.apply(state, move, {
        ...by,
        holdExpiresAt: this.holdAfter(move, hours, state.holdExpiresAt),
      });
    });
  }

  /**
   * Ends the holds that are due, a batch of jobs in a transaction of their own: the adoptions
   * open with their job's hold expired in one statement under their locks, their pets freed
   * in one, the events and the adopters' mails queued in one each. An adoption decided since,
   * or whose hold moved (approve, extend), is left as it is: the job of its new hold ends it.
   * One whose pet is not pending (moved around its adoption) fails alone, and is retried.
   */
  @BatchJobHandler(HOLD_EXPIRY_QUEUE, {
    batch: HOLD_EXPIRY_BATCH,
    concurrency: HOLD_EXPIRY_CONCURRENCY,
    perSecond: HOLD_EXPIRY_PER_SECOND,
    retryForMs: HOLD_EXPIRY_RETRY_FOR_MS,
  })
  expire(jobs: HoldExpiry[]): Promise<BatchJobOutcome[]> {
    const holds = jobs.map((job) => ({
      adoptionId: job.adoptionId,
      holdExpiresAt: new Date(job.holdExpiresAt),
    }));
    return this.txHost.withTransaction(async () => {
      const expired = await this.adoptions.expireHolds(holds);
      const moved = await this.pets.moveStatuses(
        expired.map((row) => ({ petId: row.petId, adoptionId: row.id })),
        EXPIRY_PET_MOVE.from,
        EXPIRY_PET_MOVE.to,
        NO_ACTOR,
      );
      const rows = expired.map((row) => {
        const pet = moved.get(row.petId);
        // Read pending with its adoption locked, and nothing moves it but its adoption: a
        // miss rolls the batch back, to be retried.
        if (!pet) throw new Error(`Pet ${row.petId} of adoption ${row.id} did not move`);
        return { ...row, petName: pet.name, petStatus: pet.status };
      });
      const events = rows.map((row) =>
        adoptionEvent('adoption.expired', row, { userId: null, byStaff: false }, 'expire'),
      );
      await this.events.publish(...events);
      await this.mails.onExpired(events);
      // Those still open with their hold now are the ones whose pet was not pending.
      const stuck = new Map(
        rows.length === jobs.length
          ? []
          : (await this.adoptions.openWithHold(holds)).map(({ id, petStatus }) => [id, petStatus]),
      );
      return jobs.map((job): BatchJobOutcome => {
        const petStatus = stuck.get(job.adoptionId);
        return petStatus === undefined ? undefined : { error: petNotAvailable(petStatus) };
      });
    });
  }

  /**
   * In the deletion's transaction, before the adopter's row goes (its foreign key refuses it
   * while an adoption names it): each open adoption is cancelled, freeing its pet, and every
   * adoption of the adopter is kept without it (docs/adoptions.md, "A deleted adopter").
   */
  @OnDomainEvent('user.deleting')
  async onAdopterDeleting(event: UserDeleting): Promise<void> {
    for (const state of await this.adoptions.lockOpenOfAdopter(event.userId)) {
      await this.apply(state, 'cancel', {
        actor: NO_ACTOR,
        byStaff: false,
        reason: ADOPTER_DELETED,
        holdExpiresAt: null,
      });
    }
    await this.adoptions.forgetAdopter(event.userId);
  }

  /**
   * Staff request for a customer (contract section 9): another staff account is refused
   * as an unknown one is. A deletion meanwhile is the adoption's foreign key's to refuse.
   */
  private async assertCustomer(adopterId: number): Promise<void> {
    const adopter = await this.users.accessStateOf(adopterId);
    if (adopter?.role === 'customer') return;
    throw ApiException.validation([
      {
        field: 'adopterId',
        message: adopter
          ? `user ${adopterId} is not a customer`
          : `user ${adopterId} does not exist`,
      },
    ]);
  }

  /** The hold after the move: renewed by approve, `current` moved by extend, none once closed. */
  private holdAfter(move: AdoptionMove, hours: number, current: Date | null): Date | null {
    if (move === 'approve') return new Date(Date.now() + this.config.holdMs);
    if (move === 'extend') return new Date((current?.getTime() ?? Date.now()) + hours * 3_600_000);
    return null;
  }

  /**
   * The move on the locked adoption: the adoption first, so that the pet (whose trigger
   * refuses a move while an adoption is open) moves after it is closed.
   */
  private async apply(state: AdoptionState, move: AdoptionMove, by: MoveBy): Promise<AdoptionRow> {
    const rule = MOVES[move];
    if (!rule.from.includes(state.status)) throw invalidTransition(state.status, move);
    const updated = await this.adoptions.update(state.id, changeOf(rule.to ?? state.status, by));
    if (!updated) throw adoptionNotFound(state.id);
    return this.followUpdate(updated, move, by);
  }

  /** After the adoption's update: its pet moved, its new hold's expiry queued, its event. */
  private async followUpdate(
    updated: AdoptionRow,
    move: AdoptionMove,
    by: MoveBy,
  ): Promise<AdoptionRow> {
    const rule = MOVES[move];
    let row = updated;
    if (rule.pet) {
      const moved = await this.pets.moveStatus(updated.petId, rule.pet.from, rule.pet.to, {
        ...by.actor,
        adoptionId: updated.id,
      });
      // A completed adoption does not hold its pet: a PUT may have moved it since.
      if (!moved) throw petNotAvailable((await this.pets.findOne(updated.petId)).status);
      row = { ...updated, petName: moved.name, petStatus: moved.status };
    }
    if (by.holdExpiresAt) await this.queueExpiry(updated.id, by.holdExpiresAt);
    await this.events.publish(
      adoptionEvent(
        EVENT_OF_MOVE[move],
        row,
        { userId: by.actor.userId, byStaff: by.byStaff },
        move,
      ),
    );
    return row;
  }

  private queueExpiry(adoptionId: number, holdExpiresAt: Date): Promise<void> {
    const job: HoldExpiry = {
      type: 'adoption.hold_expiry',
      subject: adoptionSubject(adoptionId),
      adoptionId,
      holdExpiresAt: holdExpiresAt.toISOString(),
    };
    return this.jobs.enqueue(HOLD_EXPIRY_QUEUE, job, { runAt: holdExpiresAt });
  }

  private async read(id: number): Promise<AdoptionRow> {
    const row = await this.adoptions.findById(id);
    if (!row) throw adoptionNotFound(id);
    return row;
  }
}
