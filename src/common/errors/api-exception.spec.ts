import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { ApiException, ERROR_CODES, ERROR_STATUS, type ErrorCode } from './api-exception.js';

interface ErrorResponseSchema {
  allOf?: { properties?: { code?: { enum?: string[] } } }[];
}
interface OpenApiDocument {
  paths: Record<
    string,
    Record<
      string,
      { responses?: Record<string, { content?: Record<string, { schema?: ErrorResponseSchema }> }> }
    >
  >;
  components: { schemas: { ErrorResponse: { properties: { code: { enum: string[] } } } } };
}

const document = JSON.parse(
  readFileSync(new URL('../../../openapi/openapi.json', import.meta.url), 'utf8'),
) as OpenApiDocument;

/** Every (status, code) pair the committed OpenAPI document lists under an operation. */
function documentedPairs(): [number, string][] {
  const pairs = new Map<string, [number, string]>();
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item)) {
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const schema = response.content?.['application/json']?.schema;
        const codes = schema?.allOf?.flatMap((part) => part.properties?.code?.enum ?? []) ?? [];
        for (const code of codes) pairs.set(`${status} ${code}`, [Number(status), code]);
      }
    }
  }
  return [...pairs.values()];
}

describe(ApiException.name, () => {
  it('should know every code the OpenAPI document lists, in its order', () => {
    expect(ERROR_CODES).toEqual(document.components.schemas.ErrorResponse.properties.code.enum);
  });

  it.each(documentedPairs())(
    'should answer %i wherever the OpenAPI document lists it for %s',
    (status, code) => {
      expect(ERROR_STATUS[code as ErrorCode]).toBe(status);
    },
  );

  it('should take its status from its code', () => {
    const sut = new ApiException('CATEGORY_IN_USE', 'Category 1 still has pets');

    expect(sut.getStatus()).toBe(409);
  });

  it('should set Retry-After on a refusal the client may repeat', () => {
    const sut = ApiException.retryLater('SERVICE_UNAVAILABLE', 'busy', 5, undefined, {
      Connection: 'close',
    });

    expect(sut.getStatus()).toBe(503);
    expect(sut.headers).toEqual({ 'Retry-After': '5', Connection: 'close' });
  });
});
