import type { PetImportResponse } from './dto/pet-import-response.dto.js';
import type { PetImport } from './pet-import.entity.js';

export function toPetImportResponse(found: PetImport): PetImportResponse {
  const { rows } = found.counts;
  return {
    id: Number(found.id),
    status: found.status,
    mode: found.mode,
    dryRun: found.dryRun,
    counts: found.counts,
    progress: found.status === 'succeeded' ? 1 : rows === 0 ? 0 : found.cursor / rows,
    errors: found.errors,
    createdAt: found.createdAt.toISOString(),
    finishedAt: found.finishedAt?.toISOString(),
  };
}
