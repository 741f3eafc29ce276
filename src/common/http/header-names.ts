/**
 * The names of the headers whose rules docs/api.md states, spelled once: code reads and
 * sets them through these (npm run lint refuses them spelled out elsewhere in src/). Node
 * lowercases incoming names: `request.get(NAME)` or `request.headers[NAME.toLowerCase()]`.
 */
export const AUTHORIZATION_HEADER = 'Authorization';
export const WWW_AUTHENTICATE_HEADER = 'WWW-Authenticate';
export const API_KEY_HEADER = 'X-API-Key';
/** Set with 403 INSUFFICIENT_SCOPE: the scopes an API key could call the operation with. */
export const ACCEPTED_SCOPES_HEADER = 'X-Accepted-Scopes';
export const REQUEST_ID_HEADER = 'X-Request-Id';
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
/** Set to `true` on a response that replays the first answer to an Idempotency-Key. */
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';
export const RATE_LIMIT_LIMIT_HEADER = 'X-RateLimit-Limit';
export const RATE_LIMIT_REMAINING_HEADER = 'X-RateLimit-Remaining';
export const RATE_LIMIT_RESET_HEADER = 'X-RateLimit-Reset';
export const RETRY_AFTER_HEADER = 'Retry-After';
export const CACHE_CONTROL_HEADER = 'Cache-Control';
export const CONTENT_DISPOSITION_HEADER = 'Content-Disposition';
export const ETAG_HEADER = 'ETag';
export const IF_MATCH_HEADER = 'If-Match';
export const IF_NONE_MATCH_HEADER = 'If-None-Match';
export const COOKIE_HEADER = 'Cookie';
export const SET_COOKIE_HEADER = 'Set-Cookie';
export const ORIGIN_HEADER = 'Origin';
export const LOCATION_HEADER = 'Location';
