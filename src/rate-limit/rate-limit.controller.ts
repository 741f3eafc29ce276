import { Controller, Get, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { SkipRateLimit } from '../common/decorators/skip-rate-limit.decorator.js';
import { RateLimitService, type CallerBudget } from './rate-limit.service.js';
import { setRateLimitHeaders } from './window-state.js';

@Controller('rate-limit')
export class RateLimitController {
  constructor(private readonly rateLimitService: RateLimitService) {}

  /** Not counted: asking how much budget is left must not spend it. */
  @Get()
  @SkipRateLimit()
  async status(
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<CallerBudget> {
    const budget = await this.rateLimitService.status(request);
    setRateLimitHeaders(response, budget.windows);
    return budget;
  }
}
