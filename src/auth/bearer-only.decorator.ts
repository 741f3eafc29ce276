import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiAuth } from '../openapi/api-docs.decorators.js';

export const BEARER_ONLY_KEY = 'petstore:bearer-only';

/**
 * Refuses API keys on a route (key management: a leaked key must not mint keys), and
 * documents the route as taking a bearer token only.
 */
export const BearerOnly = () =>
  applyDecorators(SetMetadata(BEARER_ONLY_KEY, true), ApiAuth({ bearerOnly: true }));
