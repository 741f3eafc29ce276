import { AsyncLocalStorage } from 'node:async_hooks';
import { Injectable } from '@nestjs/common';
import { InjectTransactionHost, type TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import type { EntityManager } from 'typeorm';
import { PreparedStatements } from './prepared-statements.js';

/*
 * The transaction host (docs/data-access.md, "The rule"): a service runs its work in
 * `txHost.withTransaction(...)` (or a `@Transactional()` method), and every repository
 * call inside reads `txHost.tx`, the transaction's manager, from AsyncLocalStorage. A call
 * made while a transaction is active joins it: no second connection is taken, which the
 * embedded database, with its single connection, could never give.
 */

/** The host every repository injects; its `tx` is the transaction's manager, or the pool's. */
export type TxHost = TransactionHost<TransactionalAdapterTypeOrm>;

/** For scripts outside Nest (the seed): a host whose `tx` is always `manager`. */
export const hostOf = (manager: EntityManager): TxHost => ({ tx: manager }) as TxHost;

type AfterCommitWork = () => unknown;

interface PendingWork {
  /** False once the transaction has ended: later registrations are mistakes. */
  open: boolean;
  work: AfterCommitWork[];
  /** What `gatherUntilCommit` keeps, by key, and the work that writes it before the commit. */
  gathered: Map<object, { value: unknown; write: () => Promise<unknown> }>;
}

const pendingWork = new AsyncLocalStorage<PendingWork>();

/**
 * Registers `work` to run once the current transaction has committed (awaited in order,
 * before the transaction's caller gets its result); nothing runs when it rolls back. Work
 * that touches the world outside the database (files, wake-ups) goes here, so a write that
 * rolls back leaves no trace. Outside a transaction, there is nothing to wait for: a
 * mistake, refused.
 */
export function afterCommit(work: AfterCommitWork): void {
  const pending = pendingWork.getStore();
  if (!pending?.open) throw new Error('afterCommit() outside a transaction');
  pending.work.push(work);
}

/**
 * What the current transaction gathers under `key`: `start()`'s value, made by the first call
 * in each transaction, and handed to `write` once the transaction's work has returned, inside
 * it, just before it commits (a throw of `write` rolls it back). For writes that a
 * transaction makes in many places and that need code of their own to write; those that are
 * one statement go through `GatheredStatements`. Outside a transaction, refused.
 */
export function gatherUntilCommit<T>(
  key: object,
  start: () => T,
  write: (value: T) => Promise<unknown>,
): T {
  const pending = pendingWork.getStore();
  if (!pending?.open) throw new Error('gatherUntilCommit() outside a transaction');
  let entry = pending.gathered.get(key);
  if (!entry) {
    const value = start();
    entry = { value, write: () => write(value) };
    pending.gathered.set(key, entry);
  }
  return entry.value as T;
}

/** A statement: its text, with its parameters as `$1`, `$2`..., and their values. */
export interface Statement {
  sql: string;
  params: unknown[];
}

interface StatementGatherer {
  value: unknown;
  statement: () => Statement | undefined;
  written?: (rows: unknown[]) => void;
}

/**
 * The writes a transaction gathers until its commit that are one statement each (the outbox's
 * rows, the audit's entries): their repositories build the statements, and this runs them
 * just before the commit as one statement, one round trip for all (docs/data-access.md).
 * A named one (PreparedStatements): the gatherers' combinations are few.
 */
@Injectable()
export class GatheredStatements {
  constructor(
    @InjectTransactionHost() private readonly txHost: TxHost,
    private readonly prepared: PreparedStatements,
  ) {}

  /**
   * What the current transaction gathers under `key`, as `gatherUntilCommit`: `start()`'s
   * value, made by the first call in each transaction. Once the transaction's work has
   * returned, `statementOf(value)` is the statement that writes it (undefined: nothing to
   * write), run with those of the transaction's other keys, and `written` gets the rows its
   * RETURNING clause answered, as JSON has them: a statement with `written` returns only
   * text, boolean and int4 columns, which read the same alone and combined. Outside a
   * transaction, refused.
   */
  gather<T, Row = never>(
    key: object,
    start: () => T,
    statementOf: (value: T) => Statement | undefined,
    written?: (rows: Row[]) => void,
  ): T {
    const gatherers = gatherUntilCommit(
      this,
      () => new Map<object, StatementGatherer>(),
      (gathered) => this.write([...gathered.values()]),
    );
    let gatherer = gatherers.get(key);
    if (!gatherer) {
      const value = start();
      gatherer = {
        value,
        statement: () => statementOf(value),
        written: written as StatementGatherer['written'],
      };
      gatherers.set(key, gatherer);
    }
    return gatherer.value as T;
  }

  private async write(gatherers: StatementGatherer[]): Promise<void> {
    const due = gatherers.flatMap(({ statement, written }) => {
      const next = statement();
      return next ? [{ statement: next, written }] : [];
    });
    if (due.length === 0) return;
    if (due.length === 1) {
      const [{ statement, written }] = due;
      const rows = await this.query<unknown[]>(statement);
      written?.(rows);
      return;
    }
    const [row] = await this.query<Record<string, unknown[]>[]>(combined(due));
    due.forEach(({ written }, i) => written?.(row[cteName(i)]));
  }

  private query<T>({ sql, params }: Statement): Promise<T> {
    return this.prepared.query<T>(this.txHost.tx, sql, params);
  }
}

const cteName = (index: number) => `g${index + 1}`;

/**
 * The statements as one: each a data-modifying CTE, its parameters numbered after those of
 * the ones before it, and one column per statement whose rows are wanted, those rows as a
 * JSON array (none at all when none is: a SELECT of no columns runs the CTEs all the same).
 * The CTEs run on one snapshot and none sees the rows of another: right for independent
 * writes (the outbox's and the audit's INSERTs), wrong for one that reads what another
 * writes. A statement with a WITH of its own may not write in it (PostgreSQL allows
 * data-modifying CTEs at the top level only).
 */
function combined(statements: { statement: Statement; written?: unknown }[]): Statement {
  const params: unknown[] = [];
  const ctes = statements.map(({ statement }, i) => {
    const sql = renumbered(statement.sql, params.length);
    params.push(...statement.params);
    return `${cteName(i)} AS (${sql})`;
  });
  const columns = statements.flatMap(({ written }, i) => {
    const name = cteName(i);
    return written ? [`(SELECT coalesce(json_agg(${name}), '[]') FROM ${name}) AS ${name}`] : [];
  });
  return { sql: `WITH ${ctes.join(',\n')}\nSELECT ${columns.join(', ')}`, params };
}

// A placeholder, or a quoted literal or identifier, which may hold a `$1` that is none.
const PLACEHOLDER_OR_QUOTED = /'(?:[^']|'')*'|"(?:[^"]|"")*"|\$(\d+)/g;

/** `sql` with each placeholder `$n` made `$(n + offset)`. */
function renumbered(sql: string, offset: number): string {
  if (offset === 0) return sql;
  return sql.replace(PLACEHOLDER_OR_QUOTED, (match, n?: string) =>
    n === undefined ? match : `$${Number(n) + offset}`,
  );
}

/**
 * Runs `work` inside the transaction `transact` opens around it, then what it gathered
 * (`gatherUntilCommit`), still inside it; then, once it has committed and `leave` has made it
 * no longer the current one (a query of the work must not go to its released connection),
 * what `work` registered with `afterCommit`.
 */
export async function transactionWithAfterCommit<T>(
  transact: (inside: () => Promise<T>) => Promise<T>,
  work: () => Promise<T>,
  leave: () => void = () => undefined,
): Promise<T> {
  const pending: PendingWork = { open: true, work: [], gathered: new Map() };
  const workThenWrites = async () => {
    const result = await work();
    for (const { write } of pending.gathered.values()) await write();
    return result;
  };
  let result: T;
  try {
    result = await transact(() => pendingWork.run(pending, workThenWrites));
  } finally {
    pending.open = false;
  }
  leave();
  for (const next of pending.work) await next();
  return result;
}

/** TypeORM's adapter, with the work registered by `afterCommit` run after each commit. */
export class TypeOrmTransactions extends TransactionalAdapterTypeOrm {
  constructor(options: ConstructorParameters<typeof TransactionalAdapterTypeOrm>[0]) {
    super(options);
    const base = this.optionsFactory;
    this.optionsFactory = (dataSource) => {
      const adapter = base(dataSource);
      return {
        ...adapter,
        wrapWithTransaction: (txOptions, work, setTx) =>
          transactionWithAfterCommit(
            (inside) => adapter.wrapWithTransaction(txOptions, inside, setTx),
            work,
            () => setTx(undefined),
          ),
      };
    };
  }
}
