import type { Request, Response } from 'express';
import type { Level, Logger } from 'pino';
import { pinoHttp } from 'pino-http';
import { logIdsOf } from '../common/http/request-id.middleware.js';
import { routeOf } from '../common/http/route-label.js';
import { isProbePath } from '../common/http/route-space.js';

interface Outcome {
  level: Level;
  msg: string;
  aborted?: true;
}

function outcomeOf(req: Request, res: Response): Outcome {
  if (!res.writableFinished) {
    return { level: 'warn', msg: 'request aborted by the client', aborted: true };
  }
  const status = res.statusCode;
  if (status >= 500 && status !== 503) return { level: 'error', msg: 'request failed' };
  // Probes arrive every few seconds: logged at debug only.
  if (isProbePath(req.path)) return { level: 'debug', msg: 'request completed' };
  if (status === 503) return { level: 'warn', msg: 'request refused: service unavailable' };
  return { level: 'info', msg: 'request completed' };
}

/**
 * One line per request (pino-http) once its response is finished or the client has gone:
 * request id, method, route, status, duration and the caller. The line is built here, so
 * headers and bodies are not logged. The ids are the request-id middleware's, which runs
 * first, and the audit entry's: `requestId` the service's own, `clientRequestId` a caller's
 * X-Request-Id (then the one the response echoes).
 */
export function requestLogger(logger: Logger) {
  const line = (req: Request, res: Response, { responseTime }: { responseTime: number }) => {
    const principal = req.principal;
    return {
      method: req.method,
      route: routeOf(req),
      path: req.originalUrl.split('?')[0],
      status: res.statusCode,
      durationMs: responseTime,
      ip: req.ip,
      ...(principal ? { userId: principal.userId } : {}),
      ...(principal?.apiKeyId !== undefined ? { apiKeyId: principal.apiKeyId } : {}),
      ...(outcomeOf(req, res).aborted ? { aborted: true } : {}),
    };
  };
  return pinoHttp<Request, Response>({
    logger,
    genReqId: (req) => logIdsOf(req).requestId,
    // The request's logger binds its id, under `requestId`, where pino-http would bind the
    // whole request: the line and every message written while serving the request carry
    // it. One child logger per request, the request serialised to its id and not headers
    // and all through every redaction path: the line costs what the hand-written one did.
    customAttributeKeys: { req: 'requestId' },
    wrapSerializers: false,
    serializers: {
      requestId: (value: Request | string) =>
        typeof value === 'string' ? value : logIdsOf(value).requestId,
    },
    // A caller's id, bound beside it by a second child only when there is one: pino-http
    // binds nothing for undefined, which its type (object) does not admit.
    customProps: (req) => {
      const { clientRequestId } = logIdsOf(req);
      return (clientRequestId ? { clientRequestId } : undefined) as object;
    },
    customLogLevel: (req, res) => outcomeOf(req, res).level,
    customSuccessMessage: (req, res) => outcomeOf(req, res).msg,
    customErrorMessage: (req, res) => outcomeOf(req, res).msg,
    customSuccessObject: (req, res, value: { responseTime: number }) => line(req, res, value),
    customErrorObject: (req, res, _error, value: { responseTime: number }) => line(req, res, value),
  });
}
