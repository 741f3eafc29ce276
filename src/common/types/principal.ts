/** Who is calling: a user with a bearer token, or a user's API key acting as that user. */
export interface Principal {
  kind: 'user' | 'api-key';
  userId: number;
  role: 'admin' | 'user';
  apiKeyId?: number;
}
