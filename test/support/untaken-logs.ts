import { afterAll, afterEach, expect } from '@jest/globals';
import { testLogs } from './test-logs.js';

// Run after every test of the e2e and browser projects (jest.config.js): what the test apps
// logged and no test took is written to standard error, under the test's name. Lines
// logged between tests (a background job) show under the test that ends next.
function report(when: string): void {
  const lines = testLogs.untaken();
  if (lines.length === 0) return;
  process.stderr.write(
    `\nLogged by the app ${when}, and taken by no test:\n${lines.map((line) => JSON.stringify(line)).join('\n')}\n`,
  );
}

afterEach(() => report(`during "${expect.getState().currentTestName}"`));
afterAll(() => report('outside any test'));
