import { ApiProperty } from '@nestjs/swagger';
import { ApiIdProperty, ApiTextProperty, ApiTimestampProperty } from '../../../openapi/schemas.js';
import { SESSIONS_LISTED } from '../sessions.service.js';
import { SESSION_IP_MAX_LENGTH, SESSION_USER_AGENT_MAX_LENGTH } from '../session.entity.js';

export class SessionResponse {
  @ApiIdProperty('Session id')
  id: number;

  @ApiTimestampProperty('When its login happened')
  createdAt: Date;

  @ApiTimestampProperty('Its login or last refresh')
  lastUsedAt: Date;

  @ApiTextProperty(SESSION_USER_AGENT_MAX_LENGTH, 'The login’s User-Agent, cut to 256 characters', {
    nullable: true,
  })
  userAgent: string | null;

  @ApiTextProperty(SESSION_IP_MAX_LENGTH, 'The login’s client address', { nullable: true })
  ip: string | null;

  @ApiProperty({ type: 'boolean', description: 'Whether the presented token belongs to it' })
  current: boolean;
}

export class SessionListResponse {
  @ApiProperty({
    type: [SessionResponse],
    maxItems: SESSIONS_LISTED,
    description: 'Active sessions, newest first, at most 100',
  })
  sessions: SessionResponse[];
}
