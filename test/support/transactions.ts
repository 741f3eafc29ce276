import { transactionWithAfterCommit, type TxHost } from '../../src/database/transactions.js';

/**
 * A transaction host for unit tests: runs the work at once, as a transaction that commits
 * unless the work throws (then what it registered with `afterCommit` runs), and tells
 * whether a call came from inside it (`active`), so a test can see what a service does in
 * its transaction; `onCommit` is called where the commit would be. A nested call joins the
 * outer one, as with the real host.
 */
export function fakeTxHost() {
  let depth = 0;
  const fake = {
    onCommit: () => {},
    get active(): boolean {
      return depth > 0;
    },
    isTransactionActive: () => depth > 0,
    withTransaction: <T>(work: () => Promise<T>): Promise<T> => {
      if (depth > 0) return work();
      return transactionWithAfterCommit(async (inside) => {
        depth += 1;
        try {
          const result = await inside();
          fake.onCommit();
          return result;
        } finally {
          depth -= 1;
        }
      }, work);
    },
  };
  return Object.assign(fake, { asHost: () => fake as unknown as TxHost });
}
