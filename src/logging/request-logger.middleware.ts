import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { routeOf } from '../common/http/route-label.js';
import { isProbePath } from '../common/http/route-space.js';

/**
 * One line per request once its response is finished or the client has gone: request id,
 * method, route, status, duration and the caller. Headers and bodies are not logged.
 */
export function requestLogger(logger: Logger) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = process.hrtime.bigint();
    res.once('close', () => {
      const status = res.statusCode;
      const principal = req.principal;
      const line = {
        requestId: req.requestId,
        method: req.method,
        route: routeOf(req),
        path: req.originalUrl.split('?')[0],
        status,
        durationMs: Math.round(Number(process.hrtime.bigint() - started) / 1e4) / 100,
        ip: req.ip,
        ...(principal ? { userId: principal.userId } : {}),
        ...(principal?.apiKeyId !== undefined ? { apiKeyId: principal.apiKeyId } : {}),
      };
      if (!res.writableFinished) {
        logger.warn({ ...line, aborted: true }, 'request aborted by the client');
      } else if (status >= 500 && status !== 503) {
        logger.error(line, 'request failed');
      } else if (isProbePath(req.path)) {
        // Probes arrive every few seconds: logged at debug only.
        logger.debug(line, 'request completed');
      } else if (status === 503) {
        logger.warn(line, 'request refused: service unavailable');
      } else {
        logger.info(line, 'request completed');
      }
    });
    next();
  };
}
