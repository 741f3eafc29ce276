import { Writable } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from '@jest/globals';
import { createLogger, startupLoggerOptions } from './logger.js';

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

  it('should redact credentials in headers, secret fields of a body, a query and a record, and URLs', async () => {
    const { lines, destination } = capture();
    const sut = await createLogger({ level: 'info', pretty: false, destination });
    sut.info({
      req: {
        url: '/v1/auth/verify?token=url-secret',
        originalUrl: '/v1/auth/verify?token=url-secret',
        headers: {
          authorization: 'Bearer abc.def.secret',
          'x-api-key': 'pk_live_secret',
          cookie: 'session=secret',
          'user-agent': 'curl/8',
        },
        body: { refreshToken: 'rt_secret' },
        query: { token: 'q-t0ken' },
      },
      res: { headers: { 'set-cookie': 'petstore_refresh=secret' } },
      password: 'top-level-secret',
      body: {
        username: 'bob',
        password: 'p4ssw0rd',
        currentPassword: 'old p4ssw0rd',
        token: 't0ken',
        key: 'k3y',
        secret: 'whsec_x',
      },
      query: { token: 'q-t0ken' },
      user: { passwordHash: '$argon2id$...', apiKey: 'pk_test_x' },
    });
    const [line] = lines;
    expect(line).toMatchObject({
      req: {
        url: '[REDACTED]',
        originalUrl: '[REDACTED]',
        headers: {
          authorization: '[REDACTED]',
          'x-api-key': '[REDACTED]',
          cookie: '[REDACTED]',
          'user-agent': 'curl/8',
        },
        body: { refreshToken: '[REDACTED]' },
        query: { token: '[REDACTED]' },
      },
      res: { headers: { 'set-cookie': '[REDACTED]' } },
      password: '[REDACTED]',
      body: {
        username: 'bob',
        password: '[REDACTED]',
        currentPassword: '[REDACTED]',
        token: '[REDACTED]',
        key: '[REDACTED]',
        secret: '[REDACTED]',
      },
      query: { token: '[REDACTED]' },
      user: { passwordHash: '[REDACTED]', apiKey: '[REDACTED]' },
    });
    expect(JSON.stringify(line)).not.toMatch(
      /[-_=.]secret|p4ssw0rd|t0ken|k3y|argon2|pk_|rt_|whsec/,
    );
  });

  it('should leave the request line and its child binding as they are', async () => {
    const { lines, destination } = capture();
    const sut = await createLogger({ level: 'info', pretty: false, destination });
    const line = { method: 'GET', route: '/v1/pets', path: '/v1/pets', status: 200, userId: 3 };
    sut.child({ requestId: 'r-1' }).info(line, 'request completed');
    expect(lines).toEqual([
      {
        level: 'info',
        time: expect.any(String),
        service: 'petstore',
        requestId: 'r-1',
        ...line,
        msg: 'request completed',
      },
    ]);
  });
});

describe(startupLoggerOptions.name, () => {
  it.each([
    [{}, true, true],
    [{}, false, false],
    [{ NODE_ENV: 'test' }, true, true],
    [{ NODE_ENV: 'production' }, true, false],
    [{ LOG_FORMAT: 'pretty' }, false, true],
    [{ NODE_ENV: 'production', LOG_FORMAT: 'pretty' }, false, true],
    [{ LOG_FORMAT: 'json' }, true, false],
    [{ LOG_FORMAT: 'yaml' }, true, true],
  ])(
    'should for %j, standard output a terminal: %s, choose readable lines: %s',
    (env, isTerminal, pretty) => {
      expect(startupLoggerOptions(env, isTerminal)).toEqual({ level: 'info', pretty });
    },
  );
});

describe('readable lines (LOG_FORMAT=pretty)', () => {
  it('should write one line per message: time, level, [context] and the message', async () => {
    const output: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        output.push(chunk.toString());
        done();
      },
    });
    const sut = await createLogger({ level: 'info', pretty: true, destination });
    sut.info({ context: 'Bootstrap' }, 'Listening on http://0.0.0.0:3000 (every interface)');
    sut.warn(
      {
        requestId: 'r-1',
        method: 'GET',
        route: '/v1/pets',
        path: '/v1/pets',
        status: 503,
        durationMs: 4,
      },
      'request refused: service unavailable',
    );
    // Colours depend on the terminal; the words do not.
    const text = stripVTControlCharacters(output.join(''));
    expect(text.split('\n')).toEqual([
      expect.stringMatching(
        /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: \[Bootstrap\] Listening on http:\/\/0\.0\.0\.0:3000 \(every interface\)$/,
      ),
      expect.stringMatching(
        /^\[\d\d:\d\d:\d\d\.\d{3}\] WARN: request refused: service unavailable \(GET \/v1\/pets 503, 4 ms\) {"requestId":"r-1","route":"\/v1\/pets"}$/,
      ),
      '',
    ]);
  });
});
