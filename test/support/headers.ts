export type Headers = Record<string, string>;

export const bearer = (token: string): Headers => ({ Authorization: `Bearer ${token}` });
export const apiKey = (key: string): Headers => ({ 'X-API-Key': key });
