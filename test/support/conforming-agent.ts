import type { INestApplication } from '@nestjs/common';
import type request from 'supertest';
import type { Response, Test } from 'supertest';
import { PublishedOpenApi } from '../../src/openapi/published-openapi.js';
import { OpenApiConformance, type ObservedResponse } from './openapi-conformance.js';

const HTTP_METHODS = new Set(['get', 'post', 'put', 'patch', 'delete', 'del', 'head', 'options']);

let cached: { key: string; conformance: OpenApiConformance } | undefined;

/** The checker for the document this app serves (compiled once per document). */
export function conformanceOf(app: INestApplication): OpenApiConformance {
  const document = app.get(PublishedOpenApi).json;
  const key = JSON.stringify(document);
  if (cached?.key !== key) {
    cached = {
      key,
      conformance: new OpenApiConformance(document as unknown as Record<string, unknown>),
    };
  }
  return cached.conformance;
}

/** What the checker needs from a supertest response. */
export function observe(method: string, url: string, res: Response): ObservedResponse {
  const length = res.headers['content-length'] as string | undefined;
  const bodyless = method === 'HEAD' || res.status === 204 || res.status === 304;
  const bytes =
    length !== undefined
      ? Number(length)
      : Buffer.isBuffer(res.body)
        ? res.body.length
        : (res.text ?? '').length;
  return {
    method,
    path: new URL(url).pathname,
    status: res.status,
    headers: res.headers,
    contentType: res.headers['content-type'],
    body: res.body,
    hasBody: !bodyless && bytes > 0,
  };
}

export function assertConforms(conformance: OpenApiConformance, observed: ObservedResponse): void {
  const problems = conformance.check(observed);
  if (problems.length > 0) {
    throw new Error(`Response departs from the OpenAPI document:\n- ${problems.join('\n- ')}`);
  }
}

/**
 * The supertest agent of createTestApp, with every response checked against the app's
 * OpenAPI document before the test's own expectations: a departure fails the request, and
 * so the test that sent it.
 */
export function conformingAgent(
  agent: request.Agent,
  conformance: OpenApiConformance,
): request.Agent {
  return new Proxy(agent, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (
        typeof property !== 'string' ||
        !HTTP_METHODS.has(property) ||
        typeof value !== 'function'
      ) {
        return value;
      }
      return (...args: unknown[]): Test => {
        const test = (value as (...a: unknown[]) => Test).apply(target, args);
        // No response (a connection closed on purpose) leaves nothing to check.
        return test.expect((res: Response | undefined) => {
          if (res) assertConforms(conformance, observe(test.method, test.url, res));
        });
      };
    },
  });
}
