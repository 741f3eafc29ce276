import { SetMetadata } from '@nestjs/common';

export const CONSUMES_KEY = 'petstore:consumes';

/** What `@NoBody()` records in place of a media type. */
export const NO_BODY = 'none';
/** What `@OptionalJsonBody()` records: no body, or a JSON one its DTO validates. */
export const OPTIONAL_JSON = 'optional-json';

/** The request content type a POST/PUT handler takes; JSON when not declared. */
export const Consumes = (mediaType: string) => SetMetadata(CONSUMES_KEY, mediaType);
