import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { databaseConfig } from '../config/database.config.js';
import { resolveDatabase } from './typeorm-options.js';

// Entry point for the TypeORM CLI (`npm run migration:*`), on the compiled file under dist/.
// No module registers entities here, so the CLI finds them by file name: `migration:generate`
// compares every one of them with the database.
const entities = [join(import.meta.dirname, '..', '**', '*.entity.js')];
const { options } = await resolveDatabase(databaseConfig(), entities);

export default new DataSource(options);
