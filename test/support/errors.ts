import { expect } from '@jest/globals';
import type { Response } from 'supertest';
import { ApiException } from '../../src/common/errors/api-exception.js';
import { messageOf } from '../../src/common/errors/message-of.js';

/** Asserts the error body of docs/api.md: status, code, a message and the request id. */
export function expectError(res: Response, status: number, code: string): void {
  expect({ status: res.status, code: res.body.code }).toEqual({ status, code });
  expect(res.body).toEqual({
    code,
    message: expect.any(String),
    ...(res.body.details === undefined ? {} : { details: expect.anything() }),
    requestId: res.headers['x-request-id'],
  });
}

/** Asserts a 400 VALIDATION_ERROR naming exactly these fields. */
export function expectValidationError(res: Response, fields: string[]): void {
  expectError(res, 400, 'VALIDATION_ERROR');
  const named = (res.body.details.fields as { field: string }[]).map((f) => f.field);
  expect([...new Set(named)].sort()).toEqual([...fields].sort());
}

/** The error body of docs/api.md with this code (and details), for whole-body assertions. */
export function errorBody(code: string, details?: Record<string, unknown>) {
  return {
    code,
    message: expect.any(String),
    ...(details ? { details } : {}),
    requestId: expect.any(String),
  };
}

/** The ApiException a promise is refused with; anything else fails the test. */
export async function refusal(promise: Promise<unknown>): Promise<ApiException> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!(error instanceof ApiException)) {
    throw new Error(`expected an ApiException: ${messageOf(error)}`);
  }
  return error;
}
