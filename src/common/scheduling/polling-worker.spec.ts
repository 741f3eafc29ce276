import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { PollingWorker } from './polling-worker.js';

describe(PollingWorker.name, () => {
  let runs: number;
  let release: () => void;
  let worker: PollingWorker;

  beforeEach(() => {
    jest.useFakeTimers();
    runs = 0;
    // Each run waits until the test releases it.
    worker = new PollingWorker(
      () => {
        runs += 1;
        return new Promise<void>((resolve) => (release = resolve));
      },
      1_000,
      50,
    );
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  const settle = async () => {
    release();
    await jest.advanceTimersByTimeAsync(0);
  };

  it('should run once for a burst of nudges, after the nudge delay', async () => {
    worker.nudge();
    worker.nudge();
    await jest.advanceTimersByTimeAsync(49);
    expect(runs).toBe(0);

    await jest.advanceTimersByTimeAsync(1);
    expect(runs).toBe(1);
    await settle();
    expect(runs).toBe(1);
  });

  it('should run after the delay a nudge gives, a nudge meanwhile sharing its run', async () => {
    worker.nudge(300);
    await jest.advanceTimersByTimeAsync(100);
    worker.nudge();
    await jest.advanceTimersByTimeAsync(199);
    expect(runs).toBe(0);

    await jest.advanceTimersByTimeAsync(1);
    expect(runs).toBe(1);
    await settle();
    expect(runs).toBe(1);
  });

  it('should run once more after a run that was asked for again while it ran, never two at once', async () => {
    worker.run();
    worker.run();
    worker.run();
    expect(runs).toBe(1);

    await settle();
    expect(runs).toBe(2);
    await settle();
    expect(runs).toBe(2);
  });

  it('should run every poll interval once started', async () => {
    worker.start();
    await jest.advanceTimersByTimeAsync(50);
    await settle();
    await jest.advanceTimersByTimeAsync(1_000);
    expect(runs).toBe(2);
    await settle();
  });

  it('should stop polling, refuse new runs and wait for the run in progress', async () => {
    worker.start();
    await jest.advanceTimersByTimeAsync(50);
    let stopped = false;
    const stopping = worker.stop().then(() => (stopped = true));
    expect(worker.stopping).toBe(true);
    await jest.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);

    await settle();
    await stopping;
    worker.run();
    worker.nudge();
    await jest.advanceTimersByTimeAsync(5_000);
    expect(runs).toBe(1);
  });
});
