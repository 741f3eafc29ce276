import { DataSource } from 'typeorm';
import { databaseConfig } from '../config/database.config.js';
import { resolveDatabase } from './typeorm-options.js';

// Entry point for the TypeORM CLI (`npm run migration:*`), on the compiled file under dist/.
const { options } = await resolveDatabase(databaseConfig());

export default new DataSource(options);
