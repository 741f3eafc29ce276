import { ApiException } from '../common/errors/api-exception.js';

/** Also ParseIdPipe's answer on the pet routes (and media's), for ids that cannot exist. */
export const petNotFound = (id: number | string) =>
  new ApiException('PET_NOT_FOUND', `Pet ${id} not found`);
