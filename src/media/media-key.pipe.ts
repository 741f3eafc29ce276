import { Injectable, PipeTransform } from '@nestjs/common';
import { ApiException } from '../common/errors/api-exception.js';
import { isMediaKey } from './media-key.js';

/** Anything outside the key grammar cannot name a stored object: 404, like an unknown key. */
@Injectable()
export class MediaKeyPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    if (!isMediaKey(value)) throw new ApiException('NOT_FOUND', 'No such media');
    return value;
  }
}
