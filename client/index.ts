import createClient, { type ClientOptions } from 'openapi-fetch';
import type { components, paths } from './schema.js';

export type { components, operations, paths } from './schema.js';

/** The response and request bodies by schema name, e.g. `Schemas['PetResponse']`. */
export type Schemas = components['schemas'];

/**
 * A typed client of the pet store API. `baseUrl` is the service's origin
 * (`https://pets.example.com`): the paths carry `/v1` themselves, and `/media/{key}` does not.
 */
export const createPetstoreClient = (options: ClientOptions) => createClient<paths>(options);
