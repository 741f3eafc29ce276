import process from 'node:process';

/** @type {import('jest').Config} */
// ESM throughout: ts-jest emits ES modules and Jest runs them under --experimental-vm-modules.
const esm = {
  moduleFileExtensions: ['js', 'json', 'ts'],
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true }] },
  testEnvironment: 'node',
  setupFiles: ['<rootDir>/test/support/preload-throttler.cjs'],
};

/** @type {import('jest').Config['projects']} */
const projects = [
  { ...esm, displayName: 'unit', rootDir: '.', testMatch: ['<rootDir>/src/**/*.spec.ts'] },
  {
    // The project's own lint rules (eslint-rules/) on source trees made for the test.
    ...esm,
    displayName: 'lint',
    rootDir: '.',
    testMatch: ['<rootDir>/test/lint/**/*.lint-spec.ts'],
  },
  {
    // A repository's SQL on a real database (test/support/repository-harness.ts), without the app.
    ...esm,
    displayName: 'integration',
    rootDir: '.',
    testMatch: ['<rootDir>/test/integration/**/*.integration-spec.ts'],
    globalSetup: '<rootDir>/test/support/global-setup.js',
    globalTeardown: '<rootDir>/test/support/global-teardown.js',
  },
  {
    ...esm,
    displayName: 'e2e',
    rootDir: '.',
    testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts'],
    globalSetup: '<rootDir>/test/support/global-setup.js',
    globalTeardown: '<rootDir>/test/support/global-teardown.js',
    setupFilesAfterEnv: ['<rootDir>/test/support/untaken-logs.ts'],
  },
  {
    // The web console in headless Chromium against the running service (npm test only:
    // the console talks to the API the e2e project already covers on every database).
    ...esm,
    displayName: 'browser',
    rootDir: '.',
    testMatch: ['<rootDir>/test/browser/**/*.browser-spec.ts'],
    globalSetup: '<rootDir>/test/support/global-setup.js',
    globalTeardown: '<rootDir>/test/support/global-teardown.js',
    setupFilesAfterEnv: ['<rootDir>/test/support/untaken-logs.ts'],
  },
  {
    // The Kubernetes manifests against the API schemas and the service's own settings; the
    // migration Job's command runs the built service (dist/).
    ...esm,
    displayName: 'deploy',
    rootDir: '.',
    testMatch: ['<rootDir>/test/deploy/**/*.deploy-spec.ts'],
    globalSetup: '<rootDir>/test/support/global-setup.js',
    globalTeardown: '<rootDir>/test/support/global-teardown.js',
  },
  {
    // The local cluster (scripts/cluster.js: nginx, PgBouncer, Redis, three built instances)
    // driven through nginx. Needs PostgreSQL and Redis (DATABASE_URL, REDIS_URL), nginx and
    // pgbouncer: `npm run test:cluster` and .ci/run only, never `npm test`.
    ...esm,
    displayName: 'cluster',
    rootDir: '.',
    testMatch: ['<rootDir>/test/cluster/**/*.cluster-spec.ts'],
  },
];

// `npm run test:e2e` and its siblings name their project here, not with --selectProjects:
// that option takes every word after it as a project name, so the test path in
// `npm run test:e2e -- test/e2e/pets/pets.e2e-spec.ts` was read as one and every e2e file ran.
// A comma-separated list (`JEST_PROJECT=e2e,integration,deploy`) runs several in one Jest
// process, as .ci/run's PostgreSQL pass does: one start-up, and its workers kept busy.
// Without it, every project but the cluster's (which needs nginx, PgBouncer and a server).
const only = process.env.JEST_PROJECT?.split(',');
const selected = only
  ? projects.filter((project) => only.includes(project.displayName))
  : projects.filter((project) => project.displayName !== 'cluster');
const unknown = only?.filter((name) => !projects.some((project) => project.displayName === name));
if (selected.length === 0 || unknown?.length) {
  const names = projects.map((project) => project.displayName).join(', ');
  throw new Error(`JEST_PROJECT=${process.env.JEST_PROJECT} names no project (${names})`);
}

/** @type {import('jest').Config} */
const config = {
  projects: selected,
  // e2e files boot an app on a fresh database and log users in (argon2) before their tests.
  testTimeout: 60_000,
  // ESM modules are not freed between test files: one process running them all grew by
  // about 50 MB a file, to gigabytes whose full collections stopped it for seconds (long
  // enough for an app's wait for its connection to time out). A worker whose heap is past
  // this after a file is replaced by a fresh one; with it set, Jest always runs files in
  // workers, never in its own process.
  workerIdleMemoryLimit: '512MB',
  collectCoverageFrom: ['src/**/*.ts'],
  coverageDirectory: './coverage',
};

export default config;
