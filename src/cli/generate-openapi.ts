import { NestFactory } from '@nestjs/core';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { AppModule } from '../app.module.js';
import { applyApiPrefix } from '../common/http/route-space.js';
import { createOpenApiDocument } from '../openapi/openapi-builder.js';

/**
 * Writes the API description without starting the service: preview mode builds the module
 * graph and routes' metadata but instantiates no provider, so no database, storage or
 * configuration is needed.
 */
async function generate(target: string): Promise<void> {
  const app = await NestFactory.create(AppModule, { preview: true, logger: ['error'] });
  applyApiPrefix(app);
  const document = createOpenApiDocument(app);
  await mkdir(dirname(target), { recursive: true });
  await writeFile(target, `${JSON.stringify(document, null, 2)}\n`);
  await app.close();
}

await generate(resolve(process.argv[2] ?? 'openapi/openapi.json'));
