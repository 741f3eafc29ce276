import { SetMetadata } from '@nestjs/common';

export const BEARER_ONLY_KEY = 'petstore:bearer-only';

/** Refuses API keys on a route (key management: a leaked key must not mint keys). */
export const BearerOnly = () => SetMetadata(BEARER_ONLY_KEY, true);
