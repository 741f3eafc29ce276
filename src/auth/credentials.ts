export const API_KEY_HEADER = 'X-API-Key';
