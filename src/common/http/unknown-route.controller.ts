import { All, Controller, Module, NotFoundException } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Public } from '../decorators/public.decorator.js';

/**
 * Every path under the API prefix that no endpoint serves ends here, after the global
 * guards, so that it is rate-limited (by client address: it is public) and carries the
 * X-RateLimit-* headers like any /v1 response. The exception filter turns the 404 into
 * 405 with `Allow` when the path is known under another method.
 */
@ApiExcludeController()
@Public()
@Controller()
export class UnknownRouteController {
  @All('*path')
  unknown(): never {
    throw new NotFoundException();
  }
}

/** Imported last by AppModule: Express tries routes in the order they were registered. */
@Module({ controllers: [UnknownRouteController] })
export class UnknownRouteModule {}
