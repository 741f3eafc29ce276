import { Injectable } from '@nestjs/common';
import { afterCommit, GatheredStatements } from '../database/transactions.js';
import { OutboxWorker } from './outbox-worker.js';
import { OutboxRepository, type NewMessage, type WrittenMessage } from './outbox.repository.js';

/**
 * Rows gathered before they are written anyway: a transaction that makes many (a fan-out's
 * deliveries, a long job's events) keeps no more in memory, nor in one statement.
 */
const GATHERED_MAX = 1000;

/**
 * The outbox rows of a transaction, from `DomainEvents.publish` and `Jobs.enqueue` wherever
 * they are called in it, written in one statement, in the order they were added, once its
 * work has returned and before it commits, with its audit entries (GatheredStatements;
 * docs/jobs.md, "In the caller's transaction"): a request that publishes two events and
 * queues two jobs pays one INSERT, not four. After the commit, the worker is nudged for the
 * consumers of the rows that are due.
 */
@Injectable()
export class OutboxWrites {
  constructor(
    private readonly outbox: OutboxRepository,
    private readonly worker: OutboxWorker,
    private readonly statements: GatheredStatements,
  ) {}

  /** Adds `messages` to the current transaction's rows, after those added before. */
  async add(messages: NewMessage[]): Promise<void> {
    const gathered = this.gathered();
    gathered.push(...messages);
    if (gathered.length >= GATHERED_MAX) await this.write(gathered);
  }

  /**
   * Writes the current transaction's rows now, alone, for a statement that must see them (a
   * cancel of their subject).
   */
  async flush(): Promise<void> {
    await this.write(this.gathered());
  }

  private gathered(): NewMessage[] {
    return this.statements.gather<NewMessage[], WrittenMessage>(
      this,
      () => [],
      (gathered) => (gathered.length > 0 ? this.outbox.addStatement(gathered) : undefined),
      (written) => this.nudgeAfterCommit(written),
    );
  }

  private async write(gathered: NewMessage[]): Promise<void> {
    if (gathered.length === 0) return;
    this.nudgeAfterCommit(await this.outbox.add(gathered.splice(0)));
  }

  private nudgeAfterCommit(written: WrittenMessage[]): void {
    // A row due later is claimed at a poll after its time: a nudge now would find nothing.
    const due = new Set(written.filter((row) => row.due).map((row) => row.consumer));
    if (due.size > 0) afterCommit(() => due.forEach((consumer) => this.worker.nudge(consumer)));
  }
}
