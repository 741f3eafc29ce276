import { SetMetadata } from '@nestjs/common';

export const CONSUMES_KEY = 'petstore:consumes';
/** What `@NoBody()` declares: the handler reads no body, so any content type will do. */
export const NO_BODY = false;

/** The request content type a POST/PUT handler takes; JSON when not declared. */
export const Consumes = (mediaType: string) => SetMetadata(CONSUMES_KEY, mediaType);

/**
 * A POST that takes no body (an action on the resource in its path): sent without one, it
 * has no Content-Type to check.
 */
export const NoBody = () => SetMetadata(CONSUMES_KEY, NO_BODY);
