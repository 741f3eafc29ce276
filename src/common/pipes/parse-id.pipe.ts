import { ArgumentMetadata, PipeTransform } from '@nestjs/common';
import { ApiException } from '../errors/api-exception.js';

const INT64_MAX = 2n ** 63n - 1n;

/**
 * Route ids are positive int64 values, handed on as numbers like the entities' ids. Ids are
 * issued in sequence, so one beyond 2^53 - 1 (where a number would round) cannot exist: it
 * gets the route's not-found error, as any other id with nothing behind it.
 */
export class ParseIdPipe implements PipeTransform<string, number> {
  constructor(private readonly notFound: (id: string) => ApiException) {}

  transform(value: string, metadata: ArgumentMetadata): number {
    if (!/^[1-9]\d{0,18}$/.test(value) || BigInt(value) > INT64_MAX) {
      throw ApiException.validation([
        { field: metadata.data ?? 'id', message: 'must be a positive 64-bit integer' },
      ]);
    }
    const id = Number(value);
    if (!Number.isSafeInteger(id)) throw this.notFound(value);
    return id;
  }
}
