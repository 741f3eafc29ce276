import { describe, expect, it, jest } from '@jest/globals';
import type { ArgumentsHost } from '@nestjs/common';
import { Logger } from '@nestjs/common';
import { QueryFailedError } from 'typeorm';
import { BackendUnavailableError } from '../errors/backend-unavailable.error.js';
import { AllExceptionsFilter } from './all-exceptions.filter.js';

// A request without a caller's X-Request-Id: the service's own id is the only one.
const OWN_ID_ONLY = { requestId: 'req-1', ownRequestId: 'req-1' };

function respond(exception: unknown, ids: Record<string, string> = OWN_ID_ONLY) {
  const response = {
    headersSent: false,
    headers: {} as Record<string, string>,
    statusCode: 0,
    body: undefined as unknown,
    setHeader(name: string, value: string) {
      this.headers[name] = value;
    },
    status(code: number) {
      this.statusCode = code;
      return this;
    },
    json(body: unknown) {
      this.body = body;
    },
  };
  const request = { method: 'GET', originalUrl: '/v1/pets', ...ids };
  const host = {
    switchToHttp: () => ({ getRequest: () => request, getResponse: () => response }),
  } as unknown as ArgumentsHost;
  new AllExceptionsFilter().catch(exception, host);
  return response;
}

/** What a violation of FK_pets_category is, and the status and body it is answered with. */
type ForeignKeyCase = [label: string, code: string, detail: string, status: number, body: object];

const driverError = (fields: Record<string, string>) =>
  new QueryFailedError('SELECT secret FROM t', [], Object.assign(new Error('driver text'), fields));

describe(AllExceptionsFilter.name, () => {
  it('should answer an unexpected error with a bare 500 INTERNAL_ERROR and log it', () => {
    const log = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const res = respond(new Error('password=hunter2 at /srv/app.js:1'));
    expect(res.statusCode).toBe(500);
    expect(res.body).toEqual({
      code: 'INTERNAL_ERROR',
      message: 'An unexpected error occurred',
      requestId: 'req-1',
    });
    expect(log).toHaveBeenCalledWith(expect.stringContaining('req-1'), expect.any(String));
    log.mockRestore();
  });

  it("should answer with the caller's X-Request-Id and log the service's own id beside it", () => {
    const log = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const res = respond(new Error('boom'), {
      requestId: 'caller-1',
      ownRequestId: 'req-1',
      clientRequestId: 'caller-1',
    });
    expect(res.body).toMatchObject({ code: 'INTERNAL_ERROR', requestId: 'caller-1' });
    expect(log).toHaveBeenCalledWith(
      'GET /v1/pets failed [requestId=req-1 clientRequestId=caller-1]',
      expect.any(String),
    );
    log.mockRestore();
  });

  it.each([
    ['UQ_users_username_lower', 'Key (lower(username::text))=(bob) already exists.', 'username'],
    ['UQ_users_email_lower', 'Key (lower(email::text))=(b@x.io) already exists.', 'email'],
    ['UQ_categories_name_lower', 'Key (lower(name::text))=(dogs) already exists.', 'name'],
  ])(
    'should answer a unique violation of %s 409 CONFLICT naming its field',
    (constraint, detail, field) => {
      const res = respond(driverError({ code: '23505', constraint, detail }));
      expect(res.statusCode).toBe(409);
      expect(res.body).toEqual({
        code: 'CONFLICT',
        message: `${field} is already taken`,
        details: { field },
        requestId: 'req-1',
      });
    },
  );

  it('should answer a unique violation of an index no request field stands for 409 CONFLICT naming neither its column nor the value', () => {
    const res = respond(
      driverError({
        code: '23505',
        constraint: 'UQ_sessions_token_hash',
        detail: 'Key (token_hash)=(abc) already exists.',
      }),
    );
    expect(res.statusCode).toBe(409);
    expect(res.body).toEqual({
      code: 'CONFLICT',
      message: 'A unique value is already taken',
      requestId: 'req-1',
    });
  });

  it.each<ForeignKeyCase>([
    [
      'a write naming a category that does not exist',
      '23503',
      'Key (category_id)=(999) is not present in table "categories".',
      400,
      {
        code: 'VALIDATION_ERROR',
        message: 'Validation failed (categoryId: category 999 does not exist)',
        details: { fields: [{ field: 'categoryId', message: 'category 999 does not exist' }] },
      },
    ],
    ...['23503', '23001'].map((code): ForeignKeyCase => [
      `the delete of a category that pets still use (${code})`,
      code,
      'Key (id)=(5) is still referenced from table "pets".',
      409,
      {
        code: 'CATEGORY_IN_USE',
        message: 'Category 5 still has pets; move or delete them first',
      },
    ]),
  ])('should answer %s as FK_pets_category declares it', (_label, code, detail, status, body) => {
    const res = respond(driverError({ code, constraint: 'FK_pets_category', detail }));
    expect(res.statusCode).toBe(status);
    expect(res.body).toEqual({ ...body, requestId: 'req-1' });
  });

  it('should answer a violation of a foreign key no request can break 500 INTERNAL_ERROR', () => {
    const log = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const res = respond(
      driverError({
        code: '23503',
        constraint: 'FK_pet_images_pet',
        detail: 'Key (pet_id)=(7) is not present in table "pets".',
      }),
    );
    expect(res.statusCode).toBe(500);
    expect(res.body).toMatchObject({ code: 'INTERNAL_ERROR' });
    log.mockRestore();
  });

  it.each(['ECONNREFUSED', '57P01', '08006', '57014'])(
    'should map database error %s to 503 SERVICE_UNAVAILABLE with Retry-After',
    (code) => {
      const log = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
      const res = respond(driverError({ code }));
      expect(log).toHaveBeenCalledWith(expect.stringContaining('req-1'));
      expect(res.statusCode).toBe(503);
      expect(res.headers['Retry-After']).toBe('5');
      expect(res.body).toMatchObject({ code: 'SERVICE_UNAVAILABLE', requestId: 'req-1' });
      expect(JSON.stringify(res.body)).not.toContain('SELECT');
    },
  );

  it.each(['40P01', '40001'])(
    'should answer a lost deadlock or serialization conflict (%s) 503 with Retry-After: 1, logged as a warning',
    (code) => {
      const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
      const error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
      const res = respond(driverError({ code }));
      expect(res.statusCode).toBe(503);
      expect(res.headers['Retry-After']).toBe('1');
      expect(res.body).toEqual({
        code: 'SERVICE_UNAVAILABLE',
        message: 'A concurrent write got in the way; retry shortly',
        requestId: 'req-1',
      });
      expect(warn).toHaveBeenCalledWith(expect.stringContaining('req-1'));
      expect(error).not.toHaveBeenCalled();
      warn.mockRestore();
      error.mockRestore();
    },
  );

  it.each([
    'Connection terminated unexpectedly',
    'Connection terminated due to connection timeout',
    'timeout exceeded when trying to connect',
    'Query read timeout',
  ])('should map the driver failure "%s" to 503', (message) => {
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    expect(respond(new Error(message)).statusCode).toBe(503);
  });

  it('should answer an unavailable backend 503 with its Retry-After and keep the cause in the log', () => {
    const log = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const res = respond(
      new BackendUnavailableError('Image storage', 7, new Error('connect ETIMEDOUT 10.0.0.9:9000')),
    );
    expect(res.statusCode).toBe(503);
    expect(res.headers['Retry-After']).toBe('7');
    expect(res.body).toEqual({
      code: 'SERVICE_UNAVAILABLE',
      message: 'Image storage is unavailable; retry shortly',
      requestId: 'req-1',
    });
    expect(log).toHaveBeenCalledWith(expect.stringContaining('ETIMEDOUT 10.0.0.9'));
  });
});
