import type { Type } from '@nestjs/common';

/**
 * What a feature adds to the API description beyond its routes, which Nest scans: schemas no
 * route names, and entries of the OpenAPI 3.1 `webhooks` map. The feature registers its part
 * where it declares it, so that openapi/ imports no feature.
 */
export interface DocumentPart {
  extraModels: Type[];
  webhooks: Record<string, unknown>;
}

const parts = new Map<string, () => DocumentPart>();

/** Registers a feature's part, built with the document; a name registered again replaces it. */
export function addDocumentPart(name: string, part: () => DocumentPart): void {
  parts.set(name, part);
}

/** Every registered part, built now. */
export function documentParts(): DocumentPart[] {
  return [...parts.values()].map((part) => part());
}
