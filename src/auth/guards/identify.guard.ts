import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { API_KEY_HEADER } from '../credentials.js';
import { CredentialsService } from '../credentials.service.js';

/**
 * First global guard: works out who the request acts as and records it on the request
 * (`principal`) or records why its credential was refused (`authFailure`), but never
 * refuses the request itself, so that the rate limiter after it can count invalid
 * credentials by client address before AuthenticationGuard rejects them.
 */
@Injectable()
export class IdentifyGuard implements CanActivate {
  constructor(private readonly credentials: CredentialsService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<Request>();
    const result = await this.credentials.identify({
      authorization: request.get('authorization'),
      apiKey: request.get(API_KEY_HEADER),
    });
    if (result.kind === 'identified') request.principal = result.principal;
    if (result.kind === 'failed') request.authFailure = result.error;
    return true;
  }
}
