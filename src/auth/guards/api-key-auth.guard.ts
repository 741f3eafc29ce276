import { Injectable } from '@nestjs/common';
import { AuthGuard } from '@nestjs/passport';
import type { Principal } from '../../common/types/principal.js';
import { AuthErrors } from '../auth-errors.js';

/** Runs ApiKeyStrategy; anything but a principal is INVALID_API_KEY. */
@Injectable()
export class ApiKeyAuthGuard extends AuthGuard('api-key') {
  override handleRequest<T = Principal>(error: unknown, principal: T | false): T {
    if (error) throw error as Error;
    if (principal) return principal;
    throw AuthErrors.invalidApiKey();
  }
}
