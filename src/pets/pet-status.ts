export const PET_STATUSES = ['available', 'pending', 'sold'] as const;
export type PetStatus = (typeof PET_STATUSES)[number];

/** Moves allowed besides staying put: the seed's three plus a cancelled adoption. */
const MOVES: Record<PetStatus, readonly PetStatus[]> = {
  available: ['pending'],
  pending: ['sold', 'available'],
  sold: ['available'],
};

export function allowedNextStatuses(from: PetStatus): PetStatus[] {
  return [from, ...MOVES[from]];
}

export function isAllowedMove(from: PetStatus, to: PetStatus): boolean {
  return allowedNextStatuses(from).includes(to);
}
