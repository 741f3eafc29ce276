/** Thrown when the queue is full: the caller answers 503 rather than piling up work. */
export class JobQueueFullError extends Error {
  constructor() {
    super('Too many jobs are waiting');
  }
}

/**
 * At most `maxActive` jobs run at once and at most `maxWaiting` wait their turn, so that
 * a burst of uploads costs bounded CPU and memory instead of decoding everything at once.
 */
export class JobLimiter {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly maxActive: number,
    private readonly maxWaiting: number,
  ) {}

  async run<T>(job: () => Promise<T>): Promise<T> {
    if (this.active < this.maxActive) {
      this.active += 1;
    } else {
      if (this.waiting.length >= this.maxWaiting) throw new JobQueueFullError();
      // The finishing job hands its slot over directly, so `active` stays the same.
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    try {
      return await job();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active -= 1;
    }
  }
}
