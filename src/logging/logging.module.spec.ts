import { request as httpRequest } from 'node:http';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  Controller,
  Get,
  Logger,
  Module,
  Param,
  ServiceUnavailableException,
} from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import type { NextFunction, Request, Response } from 'express';
import request from 'supertest';
import { requestIdMiddleware } from '../common/http/request-id.middleware.js';
import { AppLogger } from './app-logger.service.js';
import { createLogger } from './logger.js';
import { LoggingModule, ROOT_LOGGER } from './logging.module.js';
import { requestLogger } from './request-logger.middleware.js';

type Line = Record<string, unknown>;

let released: () => void = () => undefined;

@Controller('pets')
class PetsController {
  private readonly logger = new Logger('Pets');

  @Get('slow')
  slow(): Promise<object> {
    return new Promise((resolve) => (released = () => resolve({})));
  }

  @Get('broken')
  broken(): never {
    throw new Error('the handler broke');
  }

  @Get('unavailable')
  unavailable(): never {
    throw new ServiceUnavailableException();
  }

  @Get(':petId')
  find(@Param('petId') petId: string): object {
    this.logger.log(`found pet ${petId}`);
    return { id: Number(petId) };
  }
}

@Controller('health')
class HealthController {
  @Get('live')
  live(): object {
    return {};
  }

  @Get('ready')
  ready(): never {
    throw new ServiceUnavailableException();
  }
}

@Module({ imports: [LoggingModule], controllers: [PetsController, HealthController] })
class LoggedModule {}

/** Stands in for ResolveCredentialsGuard: whom a request acts as is not this module's business. */
function asApiKey(req: Request, _res: Response, next: NextFunction): void {
  if (req.get('authorization')) {
    req.principal = { kind: 'api-key', userId: 7, role: 'user', apiKeyId: 3 };
  }
  next();
}

describe(LoggingModule.name, () => {
  const lines: Line[] = [];
  const output: string[] = [];
  let app: NestExpressApplication;

  beforeAll(async () => {
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        output.push(chunk.toString());
        lines.push(JSON.parse(chunk.toString()) as Line);
        done();
      },
    });
    const root = await createLogger({ level: 'debug', pretty: false, destination });
    const moduleRef = await Test.createTestingModule({ imports: [LoggedModule] })
      .overrideProvider(ROOT_LOGGER)
      .useValue(root)
      .compile();
    app = moduleRef.createNestApplication<NestExpressApplication>({ bufferLogs: true });
    // As configureApp() does.
    app.useLogger(app.get(AppLogger));
    app.use(requestIdMiddleware);
    app.use(requestLogger(app.get(ROOT_LOGGER)));
    app.use(asApiKey);
    app.setGlobalPrefix('v1', { exclude: ['health/live', 'health/ready'] });
    await app.listen(0, '127.0.0.1');
  });

  afterAll(() => app.close());

  /**
   * The request's line, once its response is closed (which is after the client has it), by
   * the service's own id or, with `clientRequestId`, by the caller's.
   */
  async function lineOf(
    id: string,
    field: 'requestId' | 'clientRequestId' = 'requestId',
  ): Promise<Line> {
    for (let attempt = 0; attempt < 100; attempt++) {
      const line = lines.find((l) => l[field] === id && 'status' in l);
      if (line) return line;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`no request line for ${field} ${id}`);
  }

  it('should write one line per request with the response X-Request-Id, the route and the caller', async () => {
    const res = await request(app.getHttpServer())
      .get('/v1/pets/42?limit=1')
      .set('Authorization', 'Bearer secret-bearer-token')
      .set('X-API-Key', 'pk_live_secret_key')
      .set('Cookie', 'session=secret-cookie');
    expect(res.status).toBe(200);
    const requestId = res.get('X-Request-Id')!;
    expect(await lineOf(requestId)).toEqual({
      level: 'info',
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      service: 'petstore',
      requestId,
      method: 'GET',
      route: '/v1/pets/:petId',
      path: '/v1/pets/42',
      status: 200,
      durationMs: expect.any(Number),
      ip: '127.0.0.1',
      userId: 7,
      apiKeyId: 3,
      msg: 'request completed',
    });
    expect(output.join('')).not.toMatch(/secret|authorization|cookie|x-api-key/i);
  });

  it("should give a message written while serving a request that request's id", async () => {
    const res = await request(app.getHttpServer()).get('/v1/pets/43');
    await lineOf(res.get('X-Request-Id')!);
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'info',
        requestId: res.get('X-Request-Id'),
        context: 'Pets',
        msg: 'found pet 43',
      }),
    );
  });

  it('should keep a well-formed incoming request id, and log a request Nest never saw as unmatched', async () => {
    const res = await request(app.getHttpServer())
      .get('/nothing-here')
      .set('X-Request-Id', 'caller-id-1');
    expect(res.status).toBe(404);
    expect(res.get('X-Request-Id')).toBe('caller-id-1');
    expect(await lineOf('caller-id-1', 'clientRequestId')).toMatchObject({
      requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      level: 'info',
      route: 'unmatched',
      status: 404,
      msg: 'request completed',
    });
  });

  it('should log a 500 as an error next to its cause, a 503 as a warning, and probes, even unready, at debug', async () => {
    const http = request(app.getHttpServer());
    const broken = await http.get('/v1/pets/broken');
    expect(broken.status).toBe(500);
    const requestId = broken.get('X-Request-Id')!;
    expect(await lineOf(requestId)).toMatchObject({ level: 'error', msg: 'request failed' });
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'error',
        requestId,
        err: expect.objectContaining({ message: 'the handler broke' }),
      }),
    );
    const unavailable = await http.get('/v1/pets/unavailable');
    expect(await lineOf(unavailable.get('X-Request-Id')!)).toMatchObject({
      level: 'warn',
      status: 503,
      msg: 'request refused: service unavailable',
    });
    const live = await http.get('/health/live');
    expect(await lineOf(live.get('X-Request-Id')!)).toMatchObject({
      level: 'debug',
      route: '/health/live',
      status: 200,
    });
    const unready = await http.get('/health/ready');
    expect(unready.status).toBe(503);
    expect(await lineOf(unready.get('X-Request-Id')!)).toMatchObject({
      level: 'debug',
      status: 503,
    });
  });

  it('should log a response the client abandoned as aborted, at warn', async () => {
    const { port } = app.getHttpServer().address() as { port: number };
    await new Promise<void>((resolve) => {
      const req = httpRequest({
        port,
        host: '127.0.0.1',
        path: '/v1/pets/slow',
        headers: { 'X-Request-Id': 'abandoned-1' },
      });
      req.on('error', () => resolve());
      req.end(() => setTimeout(() => req.destroy(), 100));
    });
    expect(await lineOf('abandoned-1', 'clientRequestId')).toMatchObject({
      level: 'warn',
      route: '/v1/pets/slow',
      aborted: true,
      msg: 'request aborted by the client',
    });
    released();
  });

  it("should log Nest's controller headings and mapped routes at debug only", () => {
    const contexts = ['RoutesResolver', 'RouterExplorer'];
    const startup = lines.filter((l) => contexts.includes(l.context as string));
    expect(startup).toContainEqual(
      expect.objectContaining({
        level: 'debug',
        context: 'RoutesResolver',
        msg: expect.stringContaining('HealthController'),
      }),
    );
    expect(startup).toContainEqual(
      expect.objectContaining({
        level: 'debug',
        context: 'RouterExplorer',
        msg: 'Mapped {/health/live, GET} route',
      }),
    );
    expect(startup.filter((l) => l.level !== 'debug')).toEqual([]);
  });
});
