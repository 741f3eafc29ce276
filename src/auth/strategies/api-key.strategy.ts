import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { HeaderAPIKeyStrategy } from 'passport-headerapikey';
import { API_KEY_HEADER } from '../../common/http/header-names.js';
import type { Principal } from '../../common/types/principal.js';
import { ApiKeysService } from '../api-keys.service.js';

/**
 * API keys from the X-API-Key header. passport-headerapikey reads the header; `validate`
 * checks format, checksum and mode before the database, then looks the hash up with its
 * owner's status, and throws INVALID_API_KEY for any failure.
 */
@Injectable()
export class ApiKeyStrategy extends PassportStrategy(HeaderAPIKeyStrategy, 'api-key') {
  constructor(private readonly apiKeys: ApiKeysService) {
    // passReqToCallback must stay false: Nest's wrapper passes `done` as the last argument.
    super({ header: API_KEY_HEADER, prefix: '' }, false);
  }

  validate(rawKey: string): Promise<Principal> {
    return this.apiKeys.authenticate(rawKey);
  }
}
