/** `{}`: what a successful DELETE answers (contract §4). The document closes it to no properties. */
export class EmptyResponse {}
