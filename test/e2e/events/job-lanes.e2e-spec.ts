import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { Injectable, Module } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import { outboxConfig, type OutboxConfig } from '../../../src/config/outbox.config.js';
import type { TxHost } from '../../../src/database/transactions.js';
import type { DomainEventBase } from '../../../src/events/domain-event.js';
import {
  BatchJobHandler,
  EachJobHandler,
  JobHandler,
} from '../../../src/events/event-handlers.decorator.js';
import { Jobs } from '../../../src/events/jobs.js';
import {
  OutboxHandlers,
  type BatchJobOutcome,
  type JobOutcome,
} from '../../../src/events/outbox-handlers.js';
import { OutboxWorker } from '../../../src/events/outbox-worker.js';
import { OutboxRepository } from '../../../src/events/outbox.repository.js';
import { MetricsService } from '../../../src/metrics/metrics.service.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';
import { testLogs } from '../../support/test-logs.js';
import { waitFor } from '../../support/wait.js';

const LANE = 'test.lane';
const MAIN = 'test.main';
const MAIN_SLOW = 'test.main-slow';
const CONCURRENCY = 2;
const BATCH_LANE = 'test.batch-lane';
const BATCH = 3;
const PACED_LANE = 'test.paced-lane';
const PACED_BATCH = 2;
const PACED_PER_SECOND = 10;
/** Paced to one job every 5 s: a stop comes while the lane waits for its next claim. */
const SLOW_PACED_LANE = 'test.slow-paced-lane';
/** Short, so that a job outlives its lease several times within a test. */
const LEASE_MS = 600;

interface LaneJob extends DomainEventBase {
  name: string;
  /** Runs until the test releases it. */
  held?: boolean;
  /** Runs this long: a slow job, such as an HTTP call up to its time-out. */
  runsMs?: number;
  /** Its first attempt throws. */
  failsOnce?: boolean;
  /** Its first attempt asks to run again this long after it. */
  retryInMs?: number;
}

/** Every start of a job of either queue, on any worker, in order. */
const starts: { queue: string; name: string; at: number }[] = [];
/** The lane's jobs that ended, by name, with their attempts. */
const ended = new Map<string, number>();
const releases = new Map<string, () => void>();
/** The jobs of each call of the batch lane's handler, by name, in order. */
const batches: string[][] = [];
/** Each call of the paced lane's handler: when, and its jobs' names. */
const pacedCalls: { at: number; names: string[] }[] = [];
let running = 0;
let mostRunning = 0;
/** When the main lane's slow batch last returned. */
let slowEndedAt = Infinity;

const attemptsOf = (name: string) => starts.filter((s) => s.name === name).length;

/** Queues of their own and of the main lane, whose handlers record what they get. */
@Injectable()
class LaneProbe {
  @EachJobHandler(LANE, { concurrency: CONCURRENCY })
  async lane(job: LaneJob): Promise<JobOutcome> {
    starts.push({ queue: LANE, name: job.name, at: Date.now() });
    running += 1;
    mostRunning = Math.max(mostRunning, running);
    try {
      if (job.held) await new Promise<void>((resolve) => releases.set(job.name, resolve));
      if (job.runsMs) await new Promise((resolve) => setTimeout(resolve, job.runsMs));
      if (job.failsOnce && attemptsOf(job.name) === 1) throw new Error(`${job.name} fails once`);
      if (job.retryInMs && attemptsOf(job.name) === 1) {
        return { retryAt: new Date(Date.now() + job.retryInMs) };
      }
      ended.set(job.name, attemptsOf(job.name));
    } finally {
      running -= 1;
    }
  }

  @BatchJobHandler(BATCH_LANE, { batch: BATCH, concurrency: 1 })
  batchLane(jobs: LaneJob[]): Promise<BatchJobOutcome[]> {
    batches.push(jobs.map((job) => job.name));
    const outcomes = jobs.map((job): BatchJobOutcome => {
      starts.push({ queue: BATCH_LANE, name: job.name, at: Date.now() });
      if (job.failsOnce && attemptsOf(job.name) === 1) {
        return { error: new Error(`${job.name} fails once`) };
      }
      if (job.retryInMs && attemptsOf(job.name) === 1) {
        return { retryAt: new Date(Date.now() + job.retryInMs) };
      }
      ended.set(job.name, attemptsOf(job.name));
      return undefined;
    });
    return Promise.resolve(outcomes);
  }

  @BatchJobHandler(PACED_LANE, {
    batch: PACED_BATCH,
    concurrency: 1,
    perSecond: PACED_PER_SECOND,
  })
  pacedLane(jobs: LaneJob[]): Promise<BatchJobOutcome[]> {
    pacedCalls.push({ at: Date.now(), names: jobs.map((job) => job.name) });
    for (const job of jobs) ended.set(job.name, 1);
    return Promise.resolve(jobs.map(() => undefined));
  }

  @EachJobHandler(SLOW_PACED_LANE, { concurrency: 1, perSecond: 0.2 })
  slowPacedLane(job: LaneJob): Promise<JobOutcome> {
    starts.push({ queue: SLOW_PACED_LANE, name: job.name, at: Date.now() });
    ended.set(job.name, 1);
    return Promise.resolve();
  }

  @JobHandler(MAIN)
  main(jobs: LaneJob[]): Promise<void> {
    for (const job of jobs) starts.push({ queue: MAIN, name: job.name, at: Date.now() });
    return Promise.resolve();
  }

  @JobHandler(MAIN_SLOW)
  async mainSlow(jobs: LaneJob[]): Promise<void> {
    for (const job of jobs) starts.push({ queue: MAIN_SLOW, name: job.name, at: Date.now() });
    await new Promise((resolve) =>
      setTimeout(resolve, Math.max(...jobs.map((j) => j.runsMs ?? 0))),
    );
    slowEndedAt = Date.now();
  }
}

@Module({ providers: [LaneProbe] })
class LaneProbeModule {}

/*
 * A queue of its own (`@EachJobHandler`, docs/jobs.md): one job per call with its own outcome,
 * up to its concurrency at once, in a lane that holds back no other queue (`@BatchJobHandler`:
 * a batch per call, each job with its own outcome); and the lease of a job that runs longer
 * than it, renewed while its holder lives.
 */
describe('Jobs in a lane of their own (e2e)', () => {
  let t: TestApp;
  let jobs: Jobs;
  let txHost: TxHost;
  let names = 0;

  const job = (fields: Partial<LaneJob> = {}): LaneJob => {
    names += 1;
    return { type: 'test.lane', subject: `lane:${names}`, name: `job-${names}`, ...fields };
  };
  const enqueue = (queue: string, ...queued: LaneJob[]) =>
    txHost.withTransaction(() => jobs.enqueueAll(queue, queued));
  const released = (name: string) =>
    waitFor(() => Promise.resolve(releases.has(name))).then(() => releases.get(name)!());

  beforeAll(async () => {
    t = await createTestApp(
      {
        OUTBOX_POLL_INTERVAL_MS: '50',
        OUTBOX_RETRY_BASE_MS: '100',
        OUTBOX_LEASE_MS: String(LEASE_MS),
      },
      { imports: [LaneProbeModule] },
    );
    jobs = t.app.get(Jobs);
    txHost = t.app.get<TxHost>(TransactionHost);
  });
  afterAll(async () => {
    for (const release of releases.values()) release();
    await t?.close();
  });
  beforeEach(() => {
    mostRunning = running;
  });

  it('should run each job on its own call, at most the concurrency at once, a throw retrying only its job', async () => {
    const failing = job({ failsOnce: true });
    const held = [job({ held: true }), job({ held: true }), job({ held: true })];
    await enqueue(LANE, failing, ...held);
    await waitFor(() => Promise.resolve(releases.size >= CONCURRENCY));

    expect(mostRunning).toBe(CONCURRENCY);
    for (const { name } of held) await released(name);
    await waitFor(() => Promise.resolve([failing, ...held].every(({ name }) => ended.has(name))));
    expect([failing, ...held].map(({ name }) => ended.get(name))).toEqual([2, 1, 1, 1]);
    expect(mostRunning).toBe(CONCURRENCY);
    // Its failure is logged as a warning, retried later.
    testLogs.take((line) => String(line.msg).includes(`${failing.name} fails once`));
  });

  it('should hand a batch lane its due jobs a batch per call, each job with its own outcome', async () => {
    const failing = job({ failsOnce: true });
    const later = job({ retryInMs: 300 });
    const others = [job(), job(), job()];
    const all = [failing, later, ...others];

    await enqueue(BATCH_LANE, ...all);
    await waitFor(() => Promise.resolve(all.every(({ name }) => ended.has(name))));

    expect(batches[0]).toEqual([failing.name, later.name, others[0].name]);
    expect(Math.max(...batches.map((batch) => batch.length))).toBe(BATCH);
    // Only the failed job and the one that asked for it ran twice.
    expect(all.map(({ name }) => ended.get(name))).toEqual([2, 2, 1, 1, 1]);
    testLogs.take((line) => String(line.msg).includes(`${failing.name} fails once`));
  });

  it('should run a job again at the time its handler asked for', async () => {
    const later = job({ retryInMs: 500 });

    await enqueue(LANE, later);
    await waitFor(() => Promise.resolve(ended.has(later.name)));

    const [first, second] = starts.filter((s) => s.name === later.name);
    expect(second.at - first.at).toBeGreaterThanOrEqual(500);
    // Done: its row goes once the handler has returned.
    await waitFor(async () => {
      const rows = await t.dataSource.query<unknown[]>(
        `SELECT 1 FROM outbox_messages WHERE consumer = $1 AND event->>'name' = $2`,
        [LANE, later.name],
      );
      return rows.length === 0;
    });
  });

  it('should run another queue’s jobs while slow jobs fill the lane', async () => {
    const slow = [job({ held: true }), job({ held: true })];
    await enqueue(LANE, ...slow);
    await waitFor(() => Promise.resolve(slow.every(({ name }) => releases.has(name))));
    const other = job();

    await enqueue(MAIN, other);
    await waitFor(() => Promise.resolve(attemptsOf(other.name) === 1));

    expect(slow.some(({ name }) => ended.has(name))).toBe(false);
    for (const { name } of slow) await released(name);
    await waitFor(() => Promise.resolve(slow.every(({ name }) => ended.has(name))));
  });

  it('should renew the lease of a job that outlives it, so that another worker never takes it over', async () => {
    // A second worker on the same database, as another instance runs one.
    const second = new OutboxWorker(
      t.app.get(OutboxRepository),
      t.app.get(OutboxHandlers),
      t.app.get(MetricsService),
      t.app.get<OutboxConfig>(outboxConfig.KEY),
    );
    second.onApplicationBootstrap();
    try {
      const long = job({ runsMs: 4 * LEASE_MS });

      await enqueue(LANE, long);
      await waitFor(() => Promise.resolve(ended.has(long.name)), 10_000);

      expect(attemptsOf(long.name)).toBe(1);
    } finally {
      await second.beforeApplicationShutdown();
    }
  });

  it('should renew the lease of a main-lane job claimed with a slow batch of another queue, so that it runs once', async () => {
    const slow = job({ runsMs: 4 * LEASE_MS });
    const waiting = job();
    // One claim takes both; the slow batch runs first, the other waits its turn.
    await txHost.withTransaction(async () => {
      await jobs.enqueue(MAIN_SLOW, slow);
      await jobs.enqueue(MAIN, waiting);
    });
    await waitFor(() => Promise.resolve(attemptsOf(slow.name) === 1));
    // A second worker on the same database, started once the first holds both.
    const second = new OutboxWorker(
      t.app.get(OutboxRepository),
      t.app.get(OutboxHandlers),
      t.app.get(MetricsService),
      t.app.get<OutboxConfig>(outboxConfig.KEY),
    );
    second.onApplicationBootstrap();
    try {
      // Its holder runs it after the slow batch; taken over, it would have run before too.
      await waitFor(
        () => Promise.resolve(starts.some((s) => s.name === waiting.name && s.at >= slowEndedAt)),
        10_000,
      );

      expect(attemptsOf(slow.name)).toBe(1);
      expect(attemptsOf(waiting.name)).toBe(1);
    } finally {
      await second.beforeApplicationShutdown();
    }
  });

  it('should pace a lane with perSecond: its calls a batch’s share of a second apart', async () => {
    const paced = [job(), job(), job(), job(), job(), job()];

    await enqueue(PACED_LANE, ...paced);
    await waitFor(() => Promise.resolve(paced.every(({ name }) => ended.has(name))));

    expect(pacedCalls.map((call) => call.names)).toEqual([
      [paced[0].name, paced[1].name],
      [paced[2].name, paced[3].name],
      [paced[4].name, paced[5].name],
    ]);
    const gaps = pacedCalls.slice(1).map((call, i) => call.at - pacedCalls[i].at);
    // A claim of two jobs at ten a second: the next one no sooner than 200 ms after it (less
    // the millisecond between the claim's answer and the handler's call).
    for (const gap of gaps) {
      expect(gap).toBeGreaterThanOrEqual((PACED_BATCH * 1000) / PACED_PER_SECOND - 1);
    }
  });

  // Last: it stops the app's worker.
  it('should stop at once while a paced lane waits for its next claim, leaving its jobs queued', async () => {
    const first = job();
    const second = job();
    await enqueue(SLOW_PACED_LANE, first, second);
    await waitFor(() => Promise.resolve(ended.has(first.name)));

    const stopping = Date.now();
    await t.app.get(OutboxWorker).beforeApplicationShutdown();

    expect(Date.now() - stopping).toBeLessThan(1_000);
    expect(ended.has(second.name)).toBe(false);
    const queued = await t.dataSource.query<unknown[]>(
      `SELECT 1 FROM outbox_messages WHERE consumer = $1 AND event->>'name' = $2`,
      [SLOW_PACED_LANE, second.name],
    );
    expect(queued).toHaveLength(1);
  });
});
