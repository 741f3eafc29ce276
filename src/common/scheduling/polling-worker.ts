/**
 * Runs `work` every `pollMs`, at once on `run()`, and soon (`nudgeDelayMs`, or the delay
 * given) after `nudge()`, never two at once: asked while a run is in progress, it runs once
 * more after it. Nothing keeps the process alive; `stop()` ends the timers and waits for the
 * run in progress. `work` reports its own failures.
 */
export class PollingWorker {
  private timer?: NodeJS.Timeout;
  private nudged?: NodeJS.Timeout;
  private running?: Promise<void>;
  private again = false;
  private stopped = false;

  constructor(
    private readonly work: () => Promise<void>,
    private readonly pollMs: number,
    private readonly nudgeDelayMs: number,
  ) {}

  /** True once `stop()` was called: a run in progress should end early. */
  get stopping(): boolean {
    return this.stopped;
  }

  start(): void {
    this.timer = setInterval(() => this.run(), this.pollMs).unref();
    this.nudge();
  }

  /**
   * Runs after `delayMs` (the nudge delay by default): the nudges of a burst share one run, at
   * the time of the first.
   */
  nudge(delayMs = this.nudgeDelayMs): void {
    this.nudged ??= setTimeout(() => {
      this.nudged = undefined;
      this.run();
    }, delayMs).unref();
  }

  run(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.work().finally(() => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        this.run();
      }
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    clearTimeout(this.nudged);
    await this.running;
  }
}
