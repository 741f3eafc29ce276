export const PET_SORTS = [
  '-createdAt',
  'createdAt',
  'name',
  '-name',
  'age',
  '-age',
  'relevance',
] as const;
export type PetSort = (typeof PET_SORTS)[number];

/** Without `sort`: by relevance when searching, newest first otherwise. */
export const defaultSort = (q: string | undefined): PetSort =>
  q === undefined ? '-createdAt' : 'relevance';
