import { AsyncLocalStorage } from 'node:async_hooks';
import type { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import type { EntityManager } from 'typeorm';

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
 * transaction makes in many places and the database takes in one statement (the outbox's
 * rows). Outside a transaction, refused.
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
