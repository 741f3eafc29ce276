import { Controller, Get, Logger, Query, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags, getSchemaPath } from '@nestjs/swagger';
import type { Response } from 'express';
import { Roles } from '../common/decorators/roles.decorator.js';
import { RequiredScope } from '../common/decorators/required-scope.decorator.js';
import { messageOf } from '../common/errors/message-of.js';
import { streamResponse } from '../common/http/stream-response.js';
import { ApiAuth, ApiValidatedQuery } from '../openapi/api-docs.decorators.js';
import { toAuditEventResponse } from './audit.mapper.js';
import { AuditEventsService } from './audit-events.service.js';
import type { AuditEntryRow } from './audit.repository.js';
import { AuditRangeQueryDto, ListAuditEventsQueryDto } from './dto/audit-events-query.dto.js';
import { AuditEventListResponse, AuditEventResponse } from './dto/audit-event-response.dto.js';

const NDJSON = 'application/x-ndjson';
// UTF-8 like every JSON answer; said, since the type has no default charset.
const NDJSON_UTF8 = `${NDJSON}; charset=utf-8`;

@ApiTags('audit')
@ApiAuth()
@Controller('audit-events')
export class AuditEventsController {
  private readonly logger = new Logger('Audit');

  constructor(private readonly auditEvents: AuditEventsService) {}

  @Get()
  @RequiredScope('audit:read')
  @Roles('admin')
  @ApiOperation({
    operationId: 'listAuditEvents',
    summary: 'List audit log entries',
    description:
      'Admin only. Newest first, paged by cursor; every filter optional, `since` inclusive, ' +
      '`until` exclusive.',
  })
  @ApiValidatedQuery()
  @ApiOkResponse({ type: AuditEventListResponse, description: 'A page of entries' })
  async list(@Query() query: ListAuditEventsQueryDto): Promise<AuditEventListResponse> {
    const page = await this.auditEvents.list(query);
    return {
      auditEvents: page.entries.map(toAuditEventResponse),
      pagination: { limit: page.limit, nextCursor: page.nextCursor },
    };
  }

  @Get('export')
  @RequiredScope('audit:read')
  @Roles('admin')
  @ApiOperation({
    operationId: 'exportAuditEvents',
    summary: 'Export audit log entries as NDJSON',
    description:
      'Admin only. Every entry of the range, oldest first, one JSON object (as in the list) ' +
      'per line, streamed as it is read.',
  })
  @ApiValidatedQuery()
  @ApiOkResponse({
    description: 'One entry per line, each as `listAuditEvents` shows it',
    content: { [NDJSON]: { schema: { $ref: getSchemaPath(AuditEventResponse) } } },
  })
  async export(@Query() query: AuditRangeQueryDto, @Res() res: Response): Promise<void> {
    async function* lines(entries: AsyncIterable<AuditEntryRow>): AsyncGenerator<string> {
      for await (const entry of entries) yield line(entry);
    }
    await streamResponse(
      res,
      { 'Content-Type': NDJSON_UTF8 },
      lines(this.auditEvents.export(query)),
      (error) => this.logger.warn(`Audit export cut short: ${messageOf(error)}`),
    );
  }
}

const line = (entry: AuditEntryRow) => `${JSON.stringify(toAuditEventResponse(entry))}\n`;
