import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Roles } from '../common/decorators/roles.decorator.js';
import { RequiredScope } from '../common/decorators/required-scope.decorator.js';
import { ApiAuth, ApiValidatedQuery } from '../openapi/api-docs.decorators.js';
import { ActivityQueryDto, ActivityResponse } from './dto/activity.dto.js';
import { StatsService } from './stats.service.js';

@ApiTags('stats')
@ApiAuth()
@Controller('stats')
export class StatsController {
  constructor(private readonly stats: StatsService) {}

  @Get('activity')
  @RequiredScope('audit:read')
  @Roles('admin')
  @ApiOperation({
    operationId: 'getActivityStats',
    summary: 'Activity per day',
    description:
      'Admin only. Pets created and sold, logins and failed logins, webhook deliveries ' +
      'succeeded and failed, adoptions requested, completed and expired and the median ' +
      'hours from request to completion, per UTC day for the last `days` days (today included).',
  })
  @ApiValidatedQuery()
  @ApiOkResponse({ type: ActivityResponse, description: 'One entry per day, oldest first' })
  async activity(@Query() query: ActivityQueryDto): Promise<ActivityResponse> {
    return { days: await this.stats.activity(query.days) };
  }
}
