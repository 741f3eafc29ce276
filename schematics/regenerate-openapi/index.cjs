// Run by `nest g resource` once its files are on disk (a task, so never on --dry-run): the
// committed OpenAPI document and typed client gain the new routes, as `npm run openapi:check`
// and the OpenAPI e2e spec expect, with no step left to do by hand.
'use strict';

const { execFileSync } = require('node:child_process');

function main() {
  return () => {
    for (const script of ['openapi:generate', 'client:generate']) {
      execFileSync('npm', ['run', '--silent', script], { stdio: 'inherit' });
    }
  };
}

module.exports = { main };
