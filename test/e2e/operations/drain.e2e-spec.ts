import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { AppProcess } from '../../support/app-process.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';
import { waitFor } from '../../support/wait.js';

const DRAIN_MS = 5_000;

/** Whether a new connection to the instance is refused (nothing listens any more). */
async function refused(url: string): Promise<boolean> {
  try {
    await (await fetch(`${url}/health/live`)).arrayBuffer();
    return false;
  } catch (error) {
    return (error as { cause?: { code?: string } }).cause?.code === 'ECONNREFUSED';
  }
}

describe('The shutdown drain of the built service (e2e)', () => {
  let database: TestDatabase;
  beforeEach(async () => {
    database = await createTestDatabase();
  });
  afterEach(async () => {
    await database.drop();
  });

  it('should answer not ready at once on SIGTERM, keep serving for SHUTDOWN_DRAIN_MS, then refuse connections and exit 0', async () => {
    const app = await AppProcess.start({ ...database.env, SHUTDOWN_DRAIN_MS: String(DRAIN_MS) });
    try {
      // Logged in before the signal, as a client already using the instance is.
      expect((await app.fetch('/v1/categories')).status).toBe(200);
      const signalledAt = performance.now();
      app.signal('SIGTERM');

      await waitFor(async () => (await fetch(`${app.url}/health/ready`)).status === 503, 3_000);
      const live = await fetch(`${app.url}/health/live`);
      expect({ status: live.status, connection: live.headers.get('connection') }).toEqual({
        status: 200,
        connection: 'close',
      });
      const api = await app.fetch('/v1/categories');
      expect({ status: api.status, connection: api.headers.get('connection') }).toEqual({
        status: 200,
        connection: 'close',
      });
      expect(await api.json()).toEqual({ categories: expect.any(Array) });

      await waitFor(() => refused(app.url), DRAIN_MS + 10_000);
      // Timers may fire a millisecond early; the drain is whole seconds.
      expect(performance.now() - signalledAt).toBeGreaterThanOrEqual(DRAIN_MS - 50);
      expect(await app.exitCode()).toBe(0);
      const messages = app.logs().map((line) => String(line.msg));
      const drainStarted = messages.indexOf(
        `Draining for ${DRAIN_MS} ms: not ready, still serving`,
      );
      const listenerClosed = messages.findIndex((msg) =>
        msg.startsWith('Not accepting connections'),
      );
      expect(drainStarted).toBeGreaterThanOrEqual(0);
      expect(listenerClosed).toBeGreaterThan(drainStarted);
      expect(messages).toContain('Shut down cleanly');
    } finally {
      await app.stop();
    }
  });
});
