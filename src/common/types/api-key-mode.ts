/** An API key's mode, the `live` or `test` in `pk_live_…`; configuration enables some of them. */
export const API_KEY_MODES = ['live', 'test'] as const;
export type ApiKeyMode = (typeof API_KEY_MODES)[number];
