import { SetMetadata } from '@nestjs/common';

export const SKIP_RATE_LIMIT_KEY = 'petstore:skipRateLimit';

/** The route neither spends nor needs rate-limit budget (it still gets the headers). */
export const SkipRateLimit = () => SetMetadata(SKIP_RATE_LIMIT_KEY, true);
