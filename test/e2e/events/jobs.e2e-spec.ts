import { afterAll, beforeAll, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { Injectable, Module } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TxHost } from '../../../src/database/transactions.js';
import type { DomainEventBase } from '../../../src/events/domain-event.js';
import { JobHandler, RecurringJob } from '../../../src/events/event-handlers.decorator.js';
import { Jobs } from '../../../src/events/jobs.js';
import { OutboxRepository, type RecurringRun } from '../../../src/events/outbox.repository.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';
import { testLogs } from '../../support/test-logs.js';
import { waitFor } from '../../support/wait.js';

// Two instances in one process cannot share PGlite's data directory.
const onServer = process.env.DATABASE_URL ? it : it.skip;

const QUEUE = 'test.jobs';
const RECURRING = 'test.recurring';
const EVERY_MS = 300;
const RETRY_BASE_MS = 200;

interface ProbeJob extends DomainEventBase {
  name: string;
  /** Attempts that throw before one succeeds. */
  failures?: number;
  /** Reports this progress, then waits until the test releases it. */
  progress?: { done: number; total: number };
}

/** Every attempt of a probe job, in the order they started, by any instance. */
const attempts: { name: string; at: number; jobId: number }[] = [];
/** Every recurring run, by any instance. */
const recurringRuns: { dueAt: string }[] = [];
let release: () => void = () => undefined;

/** Jobs whose handlers record what they were given, for the tests to observe the engine. */
@Injectable()
class JobsProbe {
  constructor(private readonly jobs: Jobs) {}

  @JobHandler(QUEUE)
  async run(batch: ProbeJob[], jobIds: number[]): Promise<void> {
    for (const [index, job] of batch.entries()) {
      attempts.push({ name: job.name, at: Date.now(), jobId: jobIds[index] });
      const failed = attempts.filter((a) => a.name === job.name).length - 1;
      if (failed < (job.failures ?? 0)) throw new Error(`${job.name} fails on purpose`);
      if (job.progress) {
        await this.jobs.reportProgress(jobIds[index], job.progress);
        await new Promise<void>((resolve) => (release = resolve));
      }
    }
  }

  @RecurringJob(RECURRING, EVERY_MS)
  recur(runs: RecurringRun[]): Promise<void> {
    for (const { dueAt } of runs) recurringRuns.push({ dueAt });
    return Promise.resolve();
  }
}

@Module({ providers: [JobsProbe] })
class JobsProbeModule {}

const ENV = {
  OUTBOX_POLL_INTERVAL_MS: '50',
  OUTBOX_RETRY_BASE_MS: String(RETRY_BASE_MS),
  METRICS_ENABLED: 'true',
};

/*
 * The job engine (docs/jobs.md) seen through jobs of a test module's own: queued in the
 * caller's transaction, run after it commits, at their time, in order per subject, retried
 * with back-off, their progress readable; recurring jobs run once per period.
 */
describe('Jobs (e2e)', () => {
  let t: TestApp;
  let jobs: Jobs;
  let txHost: TxHost;
  let subjects = 0;

  const probeJob = (name: string, fields: Partial<ProbeJob> = {}): ProbeJob => ({
    type: 'test.probe',
    subject: `probe:${(subjects += 1)}`,
    name,
    ...fields,
  });
  const enqueue = (job: ProbeJob, due = {}) =>
    txHost.withTransaction(() => jobs.enqueue(QUEUE, job, due));
  const attemptsOf = (name: string) => attempts.filter((a) => a.name === name);
  const ran = (name: string) => () => Promise.resolve(attemptsOf(name).length > 0);
  const metric = async (series: string) => {
    const text = (await t.http.get('/metrics').expect(200)).text;
    const line = text.split('\n').find((l) => l.startsWith(`${series} `));
    return line === undefined ? undefined : Number(line.slice(series.length + 1));
  };

  beforeAll(async () => {
    t = await createTestApp(ENV, { imports: [JobsProbeModule] });
    jobs = t.app.get(Jobs);
    txHost = t.app.get<TxHost>(TransactionHost);
  });
  afterAll(async () => {
    await t?.close();
  });
  beforeEach(() => {
    attempts.length = 0;
  });

  it('should run nothing of a transaction that rolled back, and a committed job after its commit', async () => {
    const subject = 'probe:rolled-back';
    await expect(
      txHost.withTransaction(async () => {
        await jobs.enqueue(QUEUE, probeJob('rolled back', { subject }));
        throw new Error('the change fails');
      }),
    ).rejects.toThrow('the change fails');
    // Queued after it on the same subject: it would have waited for the rolled-back one.
    await enqueue(probeJob('committed', { subject }));

    await waitFor(ran('committed'));
    expect(attempts.map((a) => a.name)).toEqual(['committed']);
  });

  it('should refuse a job queued outside a transaction or to a queue nobody handles', async () => {
    await expect(jobs.enqueue(QUEUE, probeJob('loose'))).rejects.toThrow(
      'Jobs.enqueue() outside a transaction',
    );
    await expect(
      txHost.withTransaction(() => jobs.enqueue('nobody.handles', probeJob('lost'))),
    ).rejects.toThrow('No outbox handler is named nobody.handles');
  });

  it('should write the jobs of one transaction in one statement at its end, and cancel those queued before the cancel', async () => {
    const add = jest.spyOn(t.app.get(OutboxRepository), 'addStatement');
    const subject = 'probe:gathered';
    try {
      await txHost.withTransaction(async () => {
        await jobs.enqueue(QUEUE, probeJob('cancelled', { subject }));
        await jobs.cancel(QUEUE, subject);
        await jobs.enqueue(QUEUE, probeJob('first', { subject }));
        await jobs.enqueue(QUEUE, probeJob('second', { subject }));
      });
      await waitFor(ran('second'));

      expect(attempts.map((a) => a.name)).toEqual(['first', 'second']);
      const statements = add.mock.calls
        .map(([messages]) => messages.filter((m) => m.consumer === QUEUE))
        .filter((messages) => messages.length > 0);
      expect(statements.map((messages) => messages.map((m) => (m.event as ProbeJob).name))).toEqual(
        [['cancelled'], ['first', 'second']],
      );
    } finally {
      add.mockRestore();
    }
  });

  it('should not run a job before its runAt', async () => {
    const runAt = new Date(Date.now() + 1_000);
    await enqueue(probeJob('later'), { runAt });
    await enqueue(probeJob('now'));

    await waitFor(ran('later'));
    expect(attemptsOf('later')[0].at).toBeGreaterThanOrEqual(runAt.getTime());
    expect(attempts.map((a) => a.name)).toEqual(['now', 'later']);
  });

  it('should retry a failing job with back-off and run its subject’s later jobs after it, in order', async () => {
    const subject = 'probe:ordered';
    await txHost.withTransaction(async () => {
      await jobs.enqueue(QUEUE, probeJob('first', { subject, failures: 2 }));
      await jobs.enqueue(QUEUE, probeJob('second', { subject }));
      await jobs.enqueue(QUEUE, probeJob('third', { subject }));
    });

    await waitFor(ran('third'), 10_000);
    expect(attempts.map((a) => a.name)).toEqual(['first', 'first', 'first', 'second', 'third']);
    const [one, two, three] = attemptsOf('first').map((a) => a.at);
    // The n-th retry waits OUTBOX_RETRY_BASE_MS × 2^(n-1).
    expect(two - one).toBeGreaterThanOrEqual(RETRY_BASE_MS);
    expect(three - two).toBeGreaterThanOrEqual(2 * RETRY_BASE_MS);
    testLogs.take((line) => String(line.msg).includes('fails on purpose'));
  });

  it('should show a running job’s progress and the queue’s metrics until it is done', async () => {
    const progress = { done: 1, total: 3 };
    await enqueue(probeJob('long', { progress }));
    await waitFor(ran('long'));
    const [{ jobId }] = attemptsOf('long');

    await waitFor(async () => (await jobs.progressOf(jobId))?.done === 1);
    expect(await jobs.progressOf(jobId)).toEqual(progress);
    expect(await metric(`petstore_outbox_messages_running{consumer="${QUEUE}"}`)).toBe(1);
    expect(await metric(`petstore_outbox_messages_queued{consumer="${QUEUE}"}`)).toBe(1);
    const succeeded = `petstore_outbox_messages_total{consumer="${QUEUE}",outcome="succeeded"}`;
    const before = (await metric(succeeded)) ?? 0;

    release();
    await waitFor(async () => (await jobs.progressOf(jobId)) === undefined);
    expect(await metric(`petstore_outbox_messages_running{consumer="${QUEUE}"}`)).toBe(0);
    expect(await metric(`petstore_outbox_messages_queued{consumer="${QUEUE}"}`)).toBeUndefined();
    expect(await metric(succeeded)).toBe(before + 1);
    expect(
      await metric(`petstore_outbox_handler_seconds_count{consumer="${QUEUE}"}`),
    ).toBeGreaterThan(0);
  });

  it('should keep a schedule for each recurring job, the sweepers included', async () => {
    const schedules = () =>
      t.dataSource.query<{ queue: string; everyMs: number }[]>(
        'SELECT queue, every_ms AS "everyMs" FROM job_schedules ORDER BY queue',
      );
    await waitFor(async () => (await schedules()).length > 0);

    expect(await schedules()).toEqual([
      { queue: 'api-keys.expiry-warning', everyMs: 600_000 },
      { queue: 'audit.purge', everyMs: 3_600_000 },
      { queue: 'idempotency.sweep', everyMs: 600_000 },
      { queue: 'sessions.sweep', everyMs: 600_000 },
      { queue: RECURRING, everyMs: EVERY_MS },
      { queue: 'users.sign-up-expiry', everyMs: 600_000 },
      { queue: 'webhooks.delivery-log-sweep', everyMs: 600_000 },
    ]);
  });

  onServer('should run a recurring job once per period across two instances', async () => {
    const second = await createTestApp(ENV, {
      database: t.database,
      imports: [JobsProbeModule],
      signIn: false,
    });
    try {
      recurringRuns.length = 0;
      await waitFor(() => Promise.resolve(recurringRuns.length >= 8), 20_000);

      const dueAts = recurringRuns.map((run) => Date.parse(run.dueAt));
      expect(new Set(dueAts).size).toBe(dueAts.length);
      const sorted = [...dueAts].sort((a, b) => a - b);
      for (const [index, dueAt] of sorted.slice(1).entries()) {
        expect(dueAt - sorted[index]).toBeGreaterThanOrEqual(EVERY_MS);
      }
    } finally {
      await second.close();
    }
  });
});
