import { Writable } from 'node:stream';
import { describe, expect, it } from '@jest/globals';
import { createLogger } from './logger.js';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { lines, destination };
}

describe(createLogger.name, () => {
  it('should write JSON lines with an ISO time and the level by name', async () => {
    const { lines, destination } = capture();
    const sut = await createLogger({ level: 'info', pretty: false, destination });
    sut.debug('hidden');
    sut.info({ requestId: 'r-1' }, 'hello');
    expect(lines).toEqual([
      {
        level: 'info',
        time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        service: 'petstore',
        requestId: 'r-1',
        msg: 'hello',
      },
    ]);
  });

  it('should redact credentials in headers and secret fields at any depth', async () => {
    const { lines, destination } = capture();
    const sut = await createLogger({ level: 'info', pretty: false, destination });
    sut.info({
      req: {
        headers: {
          authorization: 'Bearer abc.def.ghi',
          'x-api-key': 'pk_live_secret',
          cookie: 'session=secret',
          'user-agent': 'curl/8',
        },
      },
      res: { headers: { 'set-cookie': 'session=secret' } },
      password: 'top-level-secret',
      body: { username: 'bob', password: 'p4ssw0rd', token: 't0ken', key: 'k3y' },
      user: { account: { passwordHash: '$argon2id$...', apiKey: 'pk_test_x' } },
    });
    const [line] = lines;
    expect(line).toMatchObject({
      req: {
        headers: {
          authorization: '[REDACTED]',
          'x-api-key': '[REDACTED]',
          cookie: '[REDACTED]',
          'user-agent': 'curl/8',
        },
      },
      res: { headers: { 'set-cookie': '[REDACTED]' } },
      password: '[REDACTED]',
      body: { username: 'bob', password: '[REDACTED]', token: '[REDACTED]', key: '[REDACTED]' },
      user: { account: { passwordHash: '[REDACTED]', apiKey: '[REDACTED]' } },
    });
    expect(JSON.stringify(line)).not.toMatch(/secret|p4ssw0rd|t0ken|k3y|argon2|pk_/);
  });
});
