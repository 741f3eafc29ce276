import { execFileSync } from 'node:child_process';
import process from 'node:process';

// After npm ci: which Node runs the npm scripts (the pinned one in node_modules) and which ran
// npm, so that a machine whose own node is older sees at once that it does not matter.
const npmNode = process.env.npm_node_execpath
  ? execFileSync(process.env.npm_node_execpath, ['--version'], { encoding: 'utf8' }).trim()
  : 'unknown';
process.stdout.write(
  `npm scripts run on Node ${process.version} (node_modules/.bin/node); npm ran on Node ${npmNode}\n`,
);
