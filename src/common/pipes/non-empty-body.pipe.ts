import { Injectable, PipeTransform } from '@nestjs/common';
import { ApiException } from '../errors/api-exception.js';

/** For partial updates: a body that sets no field at all is a client mistake. */
@Injectable()
export class NonEmptyBodyPipe implements PipeTransform<object, object> {
  transform(value: object): object {
    if (!Object.values(value).some((field) => field !== undefined)) {
      throw ApiException.validation([{ field: 'body', message: 'must set at least one field' }]);
    }
    return value;
  }
}
