import { Controller, Get, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { SkipThrottle } from '@nestjs/throttler';
import { AnyScope } from '../common/decorators/required-scope.decorator.js';
import { ApiAuth } from '../openapi/api-docs.decorators.js';
import { CallerBudgetResponse } from './dto/rate-limit-response.dto.js';
import { RateLimitService } from './rate-limit.service.js';
import { setRateLimitHeaders } from './window-state.js';

@ApiTags('rate-limit')
@Controller('rate-limit')
export class RateLimitController {
  constructor(private readonly rateLimitService: RateLimitService) {}

  /** Not counted: asking how much budget is left must not spend it. */
  @Get()
  @AnyScope()
  @SkipThrottle()
  @ApiAuth()
  @ApiOperation({
    operationId: 'getRateLimit',
    summary: 'Your rate-limit budget',
    description:
      'The caller’s budget in both windows. Not counted against it, except that a refused credential spends the client address’s budget, as everywhere.',
  })
  @ApiOkResponse({ type: CallerBudgetResponse, description: 'The budget' })
  async status(
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<CallerBudgetResponse> {
    const budget = await this.rateLimitService.status(request);
    setRateLimitHeaders(response, budget.windows);
    return budget;
  }
}
