import { describe, expect, it } from '@jest/globals';
import { JobLimiter, JobQueueFullError } from './job-limiter.js';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe(JobLimiter.name, () => {
  it('should run no more than maxActive jobs at once and start waiting jobs in order', async () => {
    const sut = new JobLimiter(2, 10);
    const gates = [deferred(), deferred(), deferred()];
    const started: number[] = [];
    const runs = gates.map((gate, i) =>
      sut.run(async () => {
        started.push(i);
        await gate.promise;
        return i;
      }),
    );
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    gates[0].resolve();
    await runs[0];
    await Promise.resolve();
    expect(started).toEqual([0, 1, 2]);
    gates[1].resolve();
    gates[2].resolve();
    await expect(Promise.all(runs)).resolves.toEqual([0, 1, 2]);
  });

  it('should refuse a job when the waiting queue is full', async () => {
    const sut = new JobLimiter(1, 1);
    const gate = deferred();
    const first = sut.run(() => gate.promise);
    const second = sut.run(() => Promise.resolve());
    await expect(sut.run(() => Promise.resolve())).rejects.toBeInstanceOf(JobQueueFullError);
    gate.resolve();
    await Promise.all([first, second]);
  });

  it('should free its slot when a job fails', async () => {
    const sut = new JobLimiter(1, 0);
    await expect(sut.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(sut.run(() => Promise.resolve('ok'))).resolves.toBe('ok');
  });
});
