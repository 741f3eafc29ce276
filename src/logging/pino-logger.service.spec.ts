import { Writable } from 'node:stream';
import { describe, expect, it } from '@jest/globals';
import { createLogger } from './logger.js';
import { PinoLoggerService } from './pino-logger.service.js';

async function capture() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  const logger = await createLogger({ level: 'debug', pretty: false, destination });
  return { lines, sut: new PinoLoggerService(logger) };
}

describe(PinoLoggerService.name, () => {
  it('should write a framework message with its context', async () => {
    const { lines, sut } = await capture();
    sut.log('Mapped {/metrics, GET} route', 'RouterExplorer');
    expect(lines).toEqual([
      expect.objectContaining({
        level: 'info',
        context: 'RouterExplorer',
        msg: 'Mapped {/metrics, GET} route',
      }),
    ]);
  });

  it("should log the route resolver's controller headings at debug", async () => {
    const { lines, sut } = await capture();
    sut.log('MetricsController {/v1/metrics}:', 'RoutesResolver');
    sut.warn('a warning', 'RoutesResolver');
    expect(lines.map(({ level, context }) => ({ level, context }))).toEqual([
      { level: 'debug', context: 'RoutesResolver' },
      { level: 'warn', context: 'RoutesResolver' },
    ]);
  });
});
