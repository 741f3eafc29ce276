import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { simpleParser } from 'mailparser';
import { createUser } from '../../support/auth.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';
import { testLogs } from '../../support/test-logs.js';
import { waitFor } from '../../support/wait.js';

/*
 * docs/mail.md, "Transports": without SMTP_URL each mail is written as an .eml file, and
 * where, with its link, is logged. A file of its own: background work logs through the
 * first app of a file (src/logging/logging.module.ts), and this one logs at info.
 */
const NEW_PASSWORD = 'a brand new password';

describe('Mail without SMTP_URL (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ OUTBOX_POLL_INTERVAL_MS: '50', LOG_LEVEL: 'info' });
  });
  afterAll(async () => {
    await t?.close();
  });
  afterEach(() => {
    // The request lines that info adds.
    testLogs.take((line) => line.context !== 'Mail' && line.level === 'info');
  });

  it('should write the mail as an .eml file under DATA_DIR/mail and log where, with its link', async () => {
    const user = await createUser(t);
    const dir = join(t.database.env.DATA_DIR, 'mail');

    await t.http
      .put(`/v1/users/${user.id}`)
      .set(user.headers)
      .send({ password: NEW_PASSWORD, currentPassword: user.password })
      .expect(200);

    const logged = () =>
      testLogs.take((line) => line.context === 'Mail' && String(line.msg).includes(user.email));
    const lines: { msg?: string }[] = [];
    await waitFor(() => {
      lines.push(...logged());
      return Promise.resolve(lines.length > 0);
    }, 10_000);
    const files = (await readdir(dir)).filter((name) => /-password-changed-\w+\.eml$/.test(name));
    expect(files).toHaveLength(1);
    const path = join(dir, files[0]);
    expect(lines).toEqual([
      expect.objectContaining({
        level: 'info',
        msg: `Mail "Your password was changed" to ${user.email} written to ${path}; link: http://localhost:${process.env.PORT ?? 3000}/console/reset-password`,
      }),
    ]);
    const parsed = await simpleParser(await readFile(path));
    expect(parsed.to).toMatchObject({ value: [{ address: user.email }] });
    expect(parsed.text).toContain(`Hello ${user.username},`);
    expect(parsed.html).toContain(`Hello ${user.username},`);
  });
});
