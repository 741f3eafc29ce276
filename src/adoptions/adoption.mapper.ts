import { createHash } from 'node:crypto';
import { strongEtag } from '../common/http/conditional-requests.js';
import type { AdoptionRow } from './adoptions.repository.js';
import type { AdoptionResponse } from './dto/adoption-response.dto.js';

// Unset fields become undefined, which JSON leaves out (docs/api.md: never null).
export function toAdoptionResponse(row: AdoptionRow): AdoptionResponse {
  return {
    id: row.id,
    pet: { id: row.petId, name: row.petName, status: row.petStatus },
    adopter:
      row.adopterId === null || row.adopterUsername === null
        ? undefined
        : { id: row.adopterId, username: row.adopterUsername },
    status: row.status,
    message: row.message ?? undefined,
    holdExpiresAt: row.holdExpiresAt?.toISOString(),
    decidedBy:
      row.decidedById === null || row.decidedByUsername === null
        ? undefined
        : { id: row.decidedById, username: row.decidedByUsername },
    reason: row.reason ?? undefined,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/**
 * The adoption's version tag: a digest of the Adoption as answered, so that what it shows of
 * its pet (name, status) and users changes it too, which the row's version alone does not.
 */
export const adoptionVersionTag = (row: AdoptionRow): string =>
  createHash('sha256')
    .update(JSON.stringify(toAdoptionResponse(row)))
    .digest('base64url')
    .slice(0, 27);

export const adoptionEtag = (row: AdoptionRow): string => strongEtag(adoptionVersionTag(row));
