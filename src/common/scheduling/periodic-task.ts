/**
 * Runs `work` every `intervalMs`, never two at once, without keeping the process alive;
 * `stop()` waits for a run in progress. `work` reports its own failures.
 */
export class PeriodicTask {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(
    private readonly work: () => Promise<void>,
    private readonly intervalMs: number,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      this.running ??= this.work().finally(() => (this.running = undefined));
    }, this.intervalMs).unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}
