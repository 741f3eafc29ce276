import { Injectable } from '@nestjs/common';
import { InjectTransactionHost } from '@nestjs-cls/transactional';
import { afterCommit, type TxHost } from '../database/transactions.js';
import type { DomainEventBase } from './domain-event.js';
import { OutboxHandlers } from './outbox-handlers.js';
import { OutboxWorker } from './outbox-worker.js';
import { OutboxWrites } from './outbox-writes.js';
import { OutboxRepository, type Due, type JobProgress } from './outbox.repository.js';

/** How a feature queues work for later and a long job says how far it got (docs/jobs.md). */
@Injectable()
export class Jobs {
  constructor(
    private readonly outbox: OutboxRepository,
    private readonly writes: OutboxWrites,
    private readonly handlers: OutboxHandlers,
    private readonly worker: OutboxWorker,
    @InjectTransactionHost() private readonly txHost: TxHost,
  ) {}

  /**
   * Queues `job` for the handler of `queue` inside the caller's transaction: it exists
   * exactly when the transaction commits (its row written with the transaction's others,
   * before the commit), and runs after the commit, no sooner than `due.runAt` (or
   * `due.delayMs` from now), after the earlier jobs of its `subject` in that queue. Outside a
   * transaction, refused.
   */
  async enqueue(queue: string, job: DomainEventBase, due: Due = {}): Promise<void> {
    await this.enqueueAll(queue, [job], due);
  }

  /** Queues `jobs`, in order, as `enqueue` queues one. */
  async enqueueAll(queue: string, jobs: DomainEventBase[], due: Due = {}): Promise<void> {
    if (!this.txHost.isTransactionActive()) throw new Error('Jobs.enqueue() outside a transaction');
    if (!this.handlers.serves(queue)) throw new Error(`No outbox handler is named ${queue}`);
    await this.writes.add(jobs.map((job) => ({ consumer: queue, event: job, due })));
  }

  /**
   * Makes the jobs of `queue` and `subject` whose payload contains `match` (`{ deliveryId: 7 }`)
   * due now, once the caller's transaction commits; how many there are, waiting or running
   * (0: none to hurry, queue one).
   */
  async runNow(queue: string, subject: string, match: object): Promise<number> {
    if (this.txHost.isTransactionActive()) await this.writes.flush();
    const count = await this.outbox.runNow(queue, subject, match);
    if (count > 0) afterCommit(() => this.worker.nudge(queue));
    return count;
  }

  /**
   * Cancels the jobs of `subject` queued to `queue` and not yet done, in the caller's
   * transaction: they are gone exactly when it commits. A job running meanwhile may still
   * finish. How many.
   */
  async cancel(queue: string, subject: string): Promise<number> {
    if (!this.txHost.isTransactionActive()) throw new Error('Jobs.cancel() outside a transaction');
    await this.writes.flush();
    return this.outbox.cancel(queue, subject);
  }

  /**
   * Keeps `progress` for job `jobId`, which runs on this instance now (its handler calls
   * this); a job taken over elsewhere meanwhile keeps its new holder's.
   */
  async reportProgress(jobId: number, progress: JobProgress): Promise<void> {
    const claimToken = this.worker.claimTokenOf(jobId);
    if (!claimToken) throw new Error(`Job ${jobId} is not running here`);
    await this.outbox.reportProgress(jobId, claimToken, progress);
  }

  /**
   * What job `jobId` last reported: null before its first report, undefined once it is done
   * (a failed job keeps its last report).
   */
  progressOf(jobId: number): Promise<JobProgress | null | undefined> {
    return this.outbox.progressOf(jobId);
  }
}
