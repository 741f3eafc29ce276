import { EventEmitter } from 'node:events';
import { describe, expect, it, jest } from '@jest/globals';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { requestLogger } from './request-logger.middleware.js';

function exchange(request: Partial<Request>, status: number, finished = true) {
  const logger = { info: jest.fn(), warn: jest.fn(), error: jest.fn(), debug: jest.fn() };
  const res = Object.assign(new EventEmitter(), { statusCode: status, writableFinished: finished });
  const req = {
    requestId: 'req-1',
    method: 'GET',
    originalUrl: '/v1/pets/7?limit=1',
    path: '/v1/pets/7',
    ip: '203.0.113.5',
    route: { path: '/v1/pets/:petId' },
    ...request,
  };
  requestLogger(logger as unknown as Logger)(
    req as unknown as Request,
    res as unknown as Response,
    jest.fn() as NextFunction,
  );
  res.emit('close');
  return logger;
}

describe(requestLogger.name, () => {
  it('should log the route template, status, duration and the calling key once finished', () => {
    const sut = exchange(
      { principal: { kind: 'api-key', userId: 7, role: 'user', apiKeyId: 3 } },
      200,
    );
    expect(sut.info).toHaveBeenCalledWith(
      {
        requestId: 'req-1',
        method: 'GET',
        route: '/v1/pets/:petId',
        path: '/v1/pets/7',
        status: 200,
        durationMs: expect.any(Number),
        ip: '203.0.113.5',
        userId: 7,
        apiKeyId: 3,
      },
      'request completed',
    );
  });

  it('should label a request no route matched as unmatched', () => {
    const sut = exchange({ route: undefined }, 404);
    expect(sut.info).toHaveBeenCalledWith(
      expect.objectContaining({ route: 'unmatched', status: 404 }),
      'request completed',
    );
  });

  it('should log 500s as errors, 503s as warnings and probes, even unready ones, at debug', () => {
    expect(exchange({}, 500).error).toHaveBeenCalled();
    expect(exchange({}, 503).warn).toHaveBeenCalled();
    expect(exchange({ path: '/health/ready' }, 200).debug).toHaveBeenCalled();
    expect(exchange({ path: '/health/ready' }, 503).debug).toHaveBeenCalled();
  });

  it('should log a response the client abandoned as aborted', () => {
    expect(exchange({}, 200, false).warn).toHaveBeenCalledWith(
      expect.objectContaining({ aborted: true }),
      'request aborted by the client',
    );
  });
});
