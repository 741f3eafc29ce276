import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiJsonBody } from '../../openapi/api-docs.decorators.js';

export const CONSUMES_KEY = 'petstore:consumes';

/** What `@NoBody()` records in place of a media type. */
export const NO_BODY = 'none';

/** The request content type a POST/PUT handler takes; JSON when not declared. */
export const Consumes = (mediaType: string) => SetMetadata(CONSUMES_KEY, mediaType);

/**
 * A POST that takes no body (an action on the resource in its path): sent without one, it
 * has no content type to check. A body sent anyway must be JSON, as on any other route,
 * and hold no field (ContentTypeGuard): `{}`.
 */
export const NoBody = () => applyDecorators(SetMetadata(CONSUMES_KEY, NO_BODY), ApiJsonBody());
