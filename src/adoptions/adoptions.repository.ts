import { Injectable } from '@nestjs/common';
import { InjectTransactionHost } from '@nestjs-cls/transactional';
import { PreparedStatements } from '../database/prepared-statements.js';
import type { TxHost } from '../database/transactions.js';
import type { PetStatus } from '../pets/pet-status.js';
import type { AdoptionStatus } from './adoption-status.js';

/** An adoption as the API shows it, with its pet's and users' names. */
export interface AdoptionRow {
  id: number;
  petId: number;
  petName: string;
  petStatus: PetStatus;
  /** Null once the adopter's account is deleted (docs/adoptions.md). */
  adopterId: number | null;
  adopterUsername: string | null;
  status: AdoptionStatus;
  message: string | null;
  holdExpiresAt: Date | null;
  decidedById: number | null;
  decidedByUsername: string | null;
  reason: string | null;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

/** What a move starts from, read under the row's lock. */
export interface AdoptionState {
  id: number;
  petId: number;
  adopterId: number | null;
  status: AdoptionStatus;
  holdExpiresAt: Date | null;
  version: number;
}

/** Adoptions requested, completed and expired on one UTC day (`YYYY-MM-DD`). */
export interface AdoptionDayCounts {
  date: string;
  adoptionsRequested: number;
  adoptionsCompleted: number;
  adoptionsExpired: number;
  /** Hours from request to completion, the median of that day's completions; null: none. */
  adoptionMedianHoursToComplete: number | null;
}

export interface AdoptionFilters {
  statuses?: AdoptionStatus[];
  petId?: number;
  adopterId?: number;
}

export interface AdoptionChange {
  status: AdoptionStatus;
  holdExpiresAt: Date | null;
  decidedById?: number;
  reason?: string;
}

/** The rows of `source` (the table, or a statement's RETURNING) as AdoptionRows. */
const selectRows = (source: string) => `
SELECT a.id AS id, a.pet_id AS "petId", p.name AS "petName",
       p.status AS "petStatus", a.adopter_id AS "adopterId",
       u.username AS "adopterUsername", a.status, a.message,
       a.hold_expires_at AS "holdExpiresAt", a.decided_by_id AS "decidedById",
       d.username AS "decidedByUsername", a.reason, a.version,
       a.created_at AS "createdAt", a.updated_at AS "updatedAt"
  FROM ${source} a
  JOIN pets p ON p.id = a.pet_id
  LEFT JOIN users u ON u.id = a.adopter_id
  LEFT JOIN users d ON d.id = a.decided_by_id`;

const SELECT_ROW = selectRows('adoptions');

const SELECT_STATE = `
SELECT id AS id, pet_id AS "petId", adopter_id AS "adopterId",
       status, hold_expires_at AS "holdExpiresAt", version
  FROM adoptions`;

/**
 * The adoptions module's door to `adoptions`; every method joins the transaction in progress.
 * "Open" is `adoption_is_open(status)` (src/database/schema/adoptions.sql) in every statement:
 * the predicate of the unique index of a pet's open adoption, which the planner uses only for
 * a query that says it the same way.
 */
@Injectable()
export class AdoptionsRepository {
  constructor(
    @InjectTransactionHost() private readonly txHost: TxHost,
    private readonly prepared: PreparedStatements,
  ) {}

  async findById(id: number): Promise<AdoptionRow | undefined> {
    const [row] = await this.run<AdoptionRow[]>(`${SELECT_ROW} WHERE a.id = $1`, [id]);
    return row;
  }

  /** Newest first, at most `limit`, below `beforeId` when given. */
  findPage(filters: AdoptionFilters, limit: number, beforeId?: number): Promise<AdoptionRow[]> {
    const params: unknown[] = [];
    const param = (value: unknown) => `$${params.push(value)}`;
    const where: string[] = [];
    if (filters.statuses) {
      where.push(`a.status = ANY(${param(filters.statuses)}::adoption_status[])`);
    }
    if (filters.petId !== undefined) where.push(`a.pet_id = ${param(filters.petId)}`);
    if (filters.adopterId !== undefined) where.push(`a.adopter_id = ${param(filters.adopterId)}`);
    if (beforeId !== undefined) where.push(`a.id < ${param(beforeId)}`);
    const clause = where.length ? `WHERE ${where.join(' AND ')}` : '';
    return this.txHost.tx.query<AdoptionRow[]>(
      `${SELECT_ROW} ${clause} ORDER BY a.id DESC LIMIT ${param(limit)}`,
      params,
    );
  }

  /** The open adoption of the pet, if it has one. */
  async findOpenOfPet(petId: number): Promise<AdoptionRow | undefined> {
    const [row] = await this.run<AdoptionRow[]>(
      `${SELECT_ROW} WHERE a.pet_id = $1 AND adoption_is_open(a.status)`,
      [petId],
    );
    return row;
  }

  /** Inside a transaction: the adoption, locked until it ends, as a move starts from it. */
  async lock(id: number): Promise<AdoptionState | undefined> {
    const [row] = await this.run<AdoptionState[]>(`${SELECT_STATE} WHERE id = $1 FOR UPDATE`, [id]);
    return row;
  }

  /** Inside a transaction: the adopter's open adoptions, locked until it ends, oldest first. */
  lockOpenOfAdopter(adopterId: number): Promise<AdoptionState[]> {
    return this.txHost.tx.query<AdoptionState[]>(
      `${SELECT_STATE} WHERE adopter_id = $1 AND adoption_is_open(status) ORDER BY id FOR UPDATE`,
      [adopterId],
    );
  }

  /** The adopter's adoptions name no adopter any more: its account is being deleted. */
  async forgetAdopter(adopterId: number): Promise<void> {
    await this.txHost.tx.query(
      `UPDATE adoptions SET adopter_id = NULL, version = version + 1, updated_at = clock_timestamp()
        WHERE adopter_id = $1`,
      [adopterId],
    );
  }

  /**
   * Inside a transaction, as a request starts: the adopter's open adoptions, counted after
   * every other request of the adopter's that started before has ended (an advisory lock held
   * until this one ends), and an id for the adoption the request is about to insert. One
   * call of `adoption_request_start` (src/database/schema/adoptions.sql), whose count sees
   * the requests committed while it waited for the lock.
   */
  async startRequest(adopterId: number): Promise<{ open: number; id: number }> {
    const [row] = await this.run<{ open: number; id: number }[]>(
      `SELECT open_count AS open, adoption_id AS id FROM adoption_request_start($1)`,
      [adopterId],
    );
    return row;
  }

  /** Inserts the requested adoption, and answers it as the API shows it. */
  async insert(fields: {
    id: number;
    petId: number;
    adopterId: number;
    message: string | null;
    holdExpiresAt: Date;
  }): Promise<AdoptionRow> {
    const [row] = await this.run<AdoptionRow[]>(
      `WITH inserted AS (
         INSERT INTO adoptions (id, pet_id, adopter_id, status, message, hold_expires_at)
         OVERRIDING SYSTEM VALUE VALUES ($1, $2, $3, 'requested', $4, $5)
         RETURNING *)
       ${selectRows('inserted')}`,
      [fields.id, fields.petId, fields.adopterId, fields.message, fields.holdExpiresAt],
    );
    return row;
  }

  /**
   * Writes the move of an adoption, locked, or in one of `condition.from` (and the adopter's,
   * when it names one): the update takes the row's lock itself, and a row that does not
   * match is left as it is (undefined). `decidedById` and `reason` are kept when undefined,
   * and the time it closed once set. Answers it as the API shows it, with its pet as it was
   * before the statement.
   */
  async update(
    id: number,
    change: AdoptionChange,
    condition?: { from: readonly AdoptionStatus[]; adopterId?: number },
  ): Promise<AdoptionRow | undefined> {
    const [row] = await this.run<AdoptionRow[]>(
      `WITH updated AS (
         UPDATE adoptions
            SET status = $2, hold_expires_at = $3,
                decided_by_id = COALESCE($4, decided_by_id), reason = COALESCE($5, reason),
                closed_at = COALESCE(closed_at, CASE WHEN adoption_is_open($2)
                                                     THEN NULL ELSE clock_timestamp() END),
                version = version + 1, updated_at = clock_timestamp()
          WHERE id = $1
            AND ($6::adoption_status[] IS NULL OR status = ANY($6::adoption_status[]))
            AND ($7::int8 IS NULL OR adopter_id = $7)
         RETURNING *)
       ${selectRows('updated')}`,
      [
        id,
        change.status,
        change.holdExpiresAt,
        change.decidedById ?? null,
        change.reason ?? null,
        condition?.from ?? null,
        condition?.adopterId ?? null,
      ],
    );
    return row;
  }

  /**
   * Inside a transaction: expires, in one statement, each adoption of `holds` that is open
   * with that hold and whose pet is pending, each locked first (one changed meanwhile is read
   * again, and left if it no longer matches). Answers them as the API shows them, their pets
   * as they were before the statement.
   */
  expireHolds(holds: { adoptionId: number; holdExpiresAt: Date }[]): Promise<AdoptionRow[]> {
    return this.run<AdoptionRow[]>(
      `WITH due AS (
         SELECT a.id FROM unnest($1::int8[], $2::timestamptz[]) AS h(id, hold_expires_at)
           JOIN adoptions a
             ON a.id = h.id AND date_trunc('milliseconds', a.hold_expires_at) = h.hold_expires_at
           JOIN pets p ON p.id = a.pet_id
          WHERE adoption_is_open(a.status) AND p.status = 'pending'
          ORDER BY a.id
            FOR UPDATE OF a),
       updated AS (
         UPDATE adoptions a
            SET status = 'expired', hold_expires_at = NULL,
                closed_at = COALESCE(a.closed_at, clock_timestamp()),
                version = a.version + 1, updated_at = clock_timestamp()
           FROM due WHERE a.id = due.id
         RETURNING a.*)
       ${selectRows('updated')}`,
      [holds.map((hold) => hold.adoptionId), holds.map((hold) => hold.holdExpiresAt)],
    );
  }

  /** Of `holds`, the adoptions still open with that hold, and their pets' statuses. */
  openWithHold(
    holds: { adoptionId: number; holdExpiresAt: Date }[],
  ): Promise<{ id: number; petStatus: PetStatus }[]> {
    return this.txHost.tx.query<{ id: number; petStatus: PetStatus }[]>(
      `SELECT a.id, p.status AS "petStatus"
         FROM unnest($1::int8[], $2::timestamptz[]) AS h(id, hold_expires_at)
         JOIN adoptions a
             ON a.id = h.id AND date_trunc('milliseconds', a.hold_expires_at) = h.hold_expires_at
         JOIN pets p ON p.id = a.pet_id
        WHERE adoption_is_open(a.status)`,
      [holds.map((hold) => hold.adoptionId), holds.map((hold) => hold.holdExpiresAt)],
    );
  }

  /**
   * Per UTC day since `since`, for the days that had any: requests by their time, and
   * completions and expiries by the time the adoption closed. A completed adoption returned
   * later still counts as completed on its day.
   */
  countPerDay(since: Date): Promise<AdoptionDayCounts[]> {
    return this.txHost.tx.query<AdoptionDayCounts[]>(
      `SELECT to_char(d.at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS date,
              count(*) FILTER (WHERE d.kind = 'requested')::int AS "adoptionsRequested",
              count(*) FILTER (WHERE d.kind = 'completed')::int AS "adoptionsCompleted",
              count(*) FILTER (WHERE d.kind = 'expired')::int AS "adoptionsExpired",
              round((percentile_cont(0.5) WITHIN GROUP (ORDER BY d.hours))::numeric, 2)::float8
                AS "adoptionMedianHoursToComplete"
         FROM (SELECT created_at AS at, 'requested' AS kind, NULL::float8 AS hours
                 FROM adoptions WHERE created_at >= $1
               UNION ALL
               SELECT closed_at,
                      CASE WHEN status = 'expired' THEN 'expired' ELSE 'completed' END,
                      CASE WHEN status = 'expired' THEN NULL
                           ELSE extract(epoch FROM closed_at - created_at) / 3600 END
                 FROM adoptions
                WHERE closed_at >= $1 AND status IN ('completed', 'returned', 'expired')) d
        GROUP BY 1`,
      [since],
    );
  }

  /** The hot statements are prepared, as the pets' are (docs/performance.md). */
  private run<T = unknown>(sql: string, params: unknown[]): Promise<T> {
    return this.prepared.query<T>(this.txHost.tx, sql, params);
  }
}
