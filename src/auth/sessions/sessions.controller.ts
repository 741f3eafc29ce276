import { Controller, Delete, Get, HttpCode, Param } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal } from '../../common/decorators/current-principal.decorator.js';
import { AnyRole, Roles } from '../../common/decorators/roles.decorator.js';
import { RequiredScope } from '../../common/decorators/required-scope.decorator.js';
import { ParseIdPipe } from '../../common/pipes/parse-id.pipe.js';
import type { Principal } from '../../common/types/principal.js';
import { ApiErrors } from '../../openapi/api-errors.decorator.js';
import { ApiAuth, ApiIdParam } from '../../openapi/api-docs.decorators.js';
import { EmptyResponse } from '../../openapi/empty-response.dto.js';
import { userNotFound } from '../../users/users.service.js';
import { BearerOnly } from '../bearer-only.decorator.js';
import { SessionListResponse } from './dto/session-response.dto.js';
import { sessionNotFound, SessionsService } from './sessions.service.js';

@ApiTags('auth')
@Controller('auth/sessions')
@BearerOnly()
@AnyRole()
export class SessionsController {
  constructor(private readonly sessionsService: SessionsService) {}

  @Get()
  @ApiOperation({
    operationId: 'listSessions',
    summary: 'List your sessions',
    description:
      'Bearer token only. The caller’s active sessions (one per login, kept by its refresh ' +
      'token), newest first, at most 100; `current` marks the one of the presented token.',
  })
  @ApiOkResponse({ type: SessionListResponse, description: 'The caller’s active sessions' })
  async list(@CurrentPrincipal() principal: Principal): Promise<SessionListResponse> {
    const sessions = await this.sessionsService.listActive(principal.userId);
    return {
      sessions: sessions.map((session) => ({
        id: session.id,
        createdAt: session.createdAt,
        lastUsedAt: session.lastUsedAt,
        userAgent: session.userAgent,
        ip: session.ip,
        current: session.id === principal.sessionId,
      })),
    };
  }

  @Delete(':id')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'deleteSession',
    summary: 'Revoke a session',
    description:
      'Bearer token only. Its refresh token stops at once, its access tokens within 60 s. ' +
      'Someone else’s session is 404, as one that does not exist or has ended.',
  })
  @ApiIdParam('id', 'Session id')
  @ApiErrors({ 404: ['SESSION_NOT_FOUND'] })
  @ApiOkResponse({ type: EmptyResponse, description: 'Revoked; the body is `{}`' })
  async remove(
    @CurrentPrincipal() principal: Principal,
    @Param('id', new ParseIdPipe(sessionNotFound)) id: number,
  ): Promise<EmptyResponse> {
    await this.sessionsService.revokeOwn(principal.userId, id);
    return {};
  }
}

/** An admin ending every session of a user: under /users, beside the user's other routes. */
@ApiTags('users')
@ApiAuth()
@Controller('users')
export class UserSessionsController {
  constructor(private readonly sessionsService: SessionsService) {}

  @Delete(':id/sessions')
  @RequiredScope('users:write')
  @Roles('admin')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'deleteUserSessions',
    summary: 'Revoke every session of a user',
    description:
      'Admin only. The user’s refresh tokens stop at once, its access tokens within 60 s; ' +
      'its API keys are not sessions and keep working.',
  })
  @ApiIdParam('id', 'User id')
  @ApiErrors({ 404: ['USER_NOT_FOUND'] })
  @ApiOkResponse({ type: EmptyResponse, description: 'Revoked; the body is `{}`' })
  async removeAll(@Param('id', new ParseIdPipe(userNotFound)) id: number): Promise<EmptyResponse> {
    await this.sessionsService.revokeAllOfUser(id);
    return {};
  }
}
