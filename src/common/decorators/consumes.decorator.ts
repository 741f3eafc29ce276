import { SetMetadata } from '@nestjs/common';

export const CONSUMES_KEY = 'petstore:consumes';

/** The request content type a POST/PUT handler takes; JSON when not declared. */
export const Consumes = (mediaType: string) => SetMetadata(CONSUMES_KEY, mediaType);
