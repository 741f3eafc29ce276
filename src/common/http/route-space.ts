import type { INestApplication } from '@nestjs/common';

/**
 * The one owner of the route space: the API lives under its version prefix, and only the
 * paths below live outside it (image files, interactive docs, the web console, operational
 * endpoints). Setup, the rate limiter, the request logger, the OpenAPI builder and the
 * controllers read them from here.
 */
export const API_PREFIX = 'v1';

export const MEDIA_PATH = 'media';
export const DOCS_PATH = 'docs';
export const CONSOLE_PATH = 'console';
export const HEALTH_PATH = 'health';
export const METRICS_PATH = 'metrics';

/** The route templates served outside the prefix, as Nest's `setGlobalPrefix` excludes them. */
const UNPREFIXED_ROUTES = [
  `${MEDIA_PATH}/:key`,
  DOCS_PATH,
  `${DOCS_PATH}/:file`,
  CONSOLE_PATH,
  `${CONSOLE_PATH}/*route`,
  `${HEALTH_PATH}/live`,
  `${HEALTH_PATH}/ready`,
  METRICS_PATH,
];

/** Puts every route under the prefix except those above: for the app and the document generator. */
export function applyApiPrefix(app: INestApplication): void {
  app.setGlobalPrefix(API_PREFIX, { exclude: UNPREFIXED_ROUTES });
}

/** Whether a path or route template is the prefix itself or lies under it. */
export function isUnderApiPrefix(path: string): boolean {
  return path === `/${API_PREFIX}` || path.startsWith(`/${API_PREFIX}/`);
}

const PROBE_PATHS = new RegExp(`^/(${HEALTH_PATH}/|${METRICS_PATH}$)`);

/** Balancers' and scrapers' probes, which arrive every few seconds. */
export function isProbePath(path: string): boolean {
  return PROBE_PATHS.test(path);
}
