import { ArgumentMetadata, Injectable, PipeTransform } from '@nestjs/common';
import { ApiException } from '../errors/api-exception.js';

const INT64_MAX = 2n ** 63n - 1n;

/**
 * Route ids are positive int64 values. The id stays a decimal string so that values
 * beyond 2^53 are compared exactly by PostgreSQL instead of being rounded in JS.
 */
@Injectable()
export class ParseIdPipe implements PipeTransform<string, string> {
  transform(value: string, metadata: ArgumentMetadata): string {
    if (!/^[1-9]\d{0,18}$/.test(value) || BigInt(value) > INT64_MAX) {
      throw ApiException.validation([
        { field: metadata.data ?? 'id', message: 'must be a positive 64-bit integer' },
      ]);
    }
    return value;
  }
}
