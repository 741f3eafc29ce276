import { expect } from '@jest/globals';
import type { Response } from 'supertest';
import { expectError } from './errors.js';
import { waitFor } from './wait.js';

/** One JSON log line of a test app. */
export interface LogLine {
  level: string;
  msg?: string;
  context?: string;
  requestId?: string;
  [field: string]: unknown;
}

/**
 * Where test apps write their log lines (at LOG_LEVEL, `error` unless a test sets it),
 * instead of standard output: a test that makes the app fail on purpose takes the lines it
 * caused and asserts on them, so a passing run prints none. Any line no test took is written
 * out when its test ends (test/support/untaken-logs.ts), so an unexpected error stays in
 * sight beside the test that met it.
 */
class TestLogs {
  private lines: LogLine[] = [];

  /** pino's destination: one JSON line per call. */
  write(line: string): void {
    this.lines.push(JSON.parse(line) as LogLine);
  }

  /** Removes the lines that match and returns them, oldest first. */
  take(match: (line: LogLine) => boolean): LogLine[] {
    const taken = this.lines.filter(match);
    this.lines = this.lines.filter((line) => !match(line));
    return taken;
  }

  /** Removes and returns every line no test took. */
  untaken(): LogLine[] {
    return this.take(() => true);
  }
}

export const testLogs = new TestLogs();

/**
 * A 500 INTERNAL_ERROR the test caused on purpose: takes its two error lines, the exception
 * filter's (with the cause's stack, written before the answer) and the request's (written
 * once the answer has gone, so it may come a moment later), and checks the cause.
 */
export async function expectInternalError(res: Response, cause: string): Promise<void> {
  expectError(res, 500, 'INTERNAL_ERROR');
  const ofRequest = (line: LogLine) => line.requestId === res.body.requestId;
  const lines: LogLine[] = [];
  await waitFor(() => {
    lines.push(...testLogs.take(ofRequest));
    return Promise.resolve(lines.length >= 2);
  });
  expect(lines).toEqual([
    expect.objectContaining({
      level: 'error',
      context: 'Errors',
      err: expect.objectContaining({ stack: expect.stringContaining(cause) }),
    }),
    expect.objectContaining({ level: 'error', msg: 'request failed', status: 500 }),
  ]);
}
