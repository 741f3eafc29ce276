/**
 * `{}`: what a successful DELETE answers (docs/api.md). The document closes it to no
 * properties.
 */
export class EmptyResponse {}
