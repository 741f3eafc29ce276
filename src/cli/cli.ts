import { NestFactory } from '@nestjs/core';
import { ApiException } from '../common/errors/api-exception.js';
import { messageOf } from '../common/errors/message-of.js';
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

async function createAdmin(args: string[]): Promise<number> {
  const dto = await parseCreateAdmin(args, { env: process.env, readStdin: readStandardInput });
  const app = await NestFactory.createApplicationContext(CliModule, { logger: ['error', 'warn'] });
  try {
    const user = await app.get(UsersService).create(dto);
    console.log(`Created admin "${user.username}" (id ${user.id}, email ${user.email})`);
    return 0;
  } catch (error) {
    // A username or email taken: UsersService answers it as for POST /v1/users.
    if (!(error instanceof ApiException && error.code === 'CONFLICT')) throw error;
    console.error(`Cannot create admin: ${error.message}`);
    return EXIT_FAILURE;
  } finally {
    await app.close();
  }
}

async function mediaGc(args: string[]): Promise<number> {
  const options = parseMediaGc(args);
  const app = await NestFactory.createApplicationContext(CliModule, { logger: ['error', 'warn'] });
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
