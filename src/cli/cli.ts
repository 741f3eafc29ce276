import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ApiException } from '../common/errors/api-exception.js';
import { constraintErrorOf } from '../common/errors/constraint-errors.js';
import { messageOf } from '../common/errors/message-of.js';
import { loadEnv } from '../config/load-env.js';
import { MediaGc } from '../media/media-gc.js';
import { UsersService } from '../users/users.service.js';
import { CliModule } from './cli.module.js';
import {
  CREATE_ADMIN_USAGE,
  parseCreateAdmin,
  readStandardInput,
  UsageError,
} from './create-admin.command.js';
import { MEDIA_GC_USAGE, parseMediaGc } from './media-gc.command.js';

const EXIT_FAILURE = 1;
const EXIT_USAGE = 2;

/**
 * The environment is validated first, as main.ts does, so that a bad variable is reported by
 * name, without Nest's stack trace. abortOnError off: any other failed start (an unreachable
 * database) throws too, so that main() reports it and exits 1, rather than Nest exiting the
 * process inside createApplicationContext.
 */
function createContext(): Promise<INestApplicationContext> {
  loadEnv();
  return NestFactory.createApplicationContext(CliModule, {
    logger: ['error', 'warn'],
    abortOnError: false,
  });
}

async function createAdmin(args: string[]): Promise<number> {
  const dto = await parseCreateAdmin(args, { env: process.env, readStdin: readStandardInput });
  const app = await createContext();
  try {
    const user = await app.get(UsersService).create(dto);
    console.log(`Created admin "${user.username}" (id ${user.id}, email ${user.email})`);
    return 0;
  } catch (error) {
    // A username or email taken: reported as POST /v1/users answers it.
    const refused = error instanceof ApiException ? error : constraintErrorOf(error);
    if (refused?.code !== 'CONFLICT') throw error;
    console.error(`Cannot create admin: ${refused.message}`);
    return EXIT_FAILURE;
  } finally {
    await app.close();
  }
}

async function mediaGc(args: string[]): Promise<number> {
  const options = parseMediaGc(args);
  const app = await createContext();
  try {
    console.log(
      options.delete
        ? 'Deleting stored images that no image row names'
        : 'Dry run: listing stored images that no image row names (--delete removes them)',
    );
    const result = await app.get(MediaGc).run(options, (line) => console.log(line));
    console.log(
      `Done: ${result.scanned} objects scanned, ${result.orphaned} orphaned, ${result.deleted} deleted`,
    );
    return 0;
  } finally {
    await app.close();
  }
}

async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  try {
    switch (command) {
      case 'create-admin':
        return await createAdmin(args);
      case 'media-gc':
        return await mediaGc(args);
      default:
        console.error(command ? `Unknown command: ${command}` : 'No command given');
        console.error(`${CREATE_ADMIN_USAGE}\n${MEDIA_GC_USAGE}`);
        return EXIT_USAGE;
    }
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`Error: ${error.message}`);
      console.error(command === 'media-gc' ? MEDIA_GC_USAGE : CREATE_ADMIN_USAGE);
      return EXIT_USAGE;
    }
    console.error(`Error: ${messageOf(error)}`);
    return EXIT_FAILURE;
  }
}

process.exitCode = await main(process.argv.slice(2));
