import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type JWK } from 'oidc-provider';
import { messageOf } from '../../src/common/errors/message-of.js';

/** What the provider says of a person, in its claims. */
export interface ProviderAccount {
  email?: string;
  email_verified?: boolean;
  given_name?: string;
  family_name?: string;
  preferred_username?: string;
}

export interface TestOidcProvider {
  /** `http://127.0.0.1:PORT`: OIDC_ISSUER. */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /**
   * Follows `authorizationUrl` through the provider as a browser would, signed in as
   * `account` (the sign-in page answers for it, without a form), until the provider sends
   * the browser to another origin: that address, the service's callback.
   */
  signIn(authorizationUrl: string, account: ProviderAccount): Promise<URL>;
  /** The account the sign-in page signs in next, for a real browser that follows the flow. */
  willSignIn(account: ProviderAccount): void;
  stop(): Promise<void>;
}

/**
 * A real OpenID Connect provider (oidc-provider, a certified implementation) on a loopback
 * port, with one confidential client whose redirect URI is `redirectUri`. Its interaction
 * page signs in the account the test names, so no browser is needed (a browser may follow
 * the flow too).
 */
export async function startOidcProvider(redirectUri: string): Promise<TestOidcProvider> {
  const accounts = new Map<string, ProviderAccount>();
  let next: string | undefined;
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = 'petstore';
  const clientSecret = 'a client secret for tests only';
  const key = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({
    format: 'jwk',
  }) as JWK;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [redirectUri],
      },
    ],
    jwks: { keys: [{ ...key, kid: 'test', use: 'sig', alg: 'RS256' }] },
    cookies: { keys: ['cookie key for tests only'] },
    claims: {
      openid: ['sub'],
      email: ['email', 'email_verified'],
      profile: ['given_name', 'family_name', 'preferred_username'],
    },
    features: { devInteractions: { enabled: false } },
    ttl: {
      AccessToken: 600,
      AuthorizationCode: 60,
      Grant: 600,
      IdToken: 600,
      Interaction: 600,
      Session: 600,
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    findAccount: (_ctx, sub) => {
      const account = accounts.get(sub);
      return account && { accountId: sub, claims: () => ({ sub, ...account }) };
    },
    // Consent is given for every client: the test signs in, it does not consent.
    loadExistingGrant: async (ctx) => {
      const accountId = ctx.oidc.session?.accountId;
      if (!accountId || !ctx.oidc.client) return undefined;
      const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client.clientId, accountId });
      grant.addOIDCScope('openid email profile');
      await grant.save();
      return grant;
    },
  });
  const callback = provider.callback();
  server.on('request', (req, res) => {
    if (!req.url?.startsWith('/interaction/')) return void callback(req, res);
    void provider
      .interactionFinished(req, res, { login: { accountId: next ?? '' } }, {})
      .catch((error: unknown) => {
        res.statusCode = 500;
        res.end(messageOf(error));
      });
  });

  const willSignIn = (account: ProviderAccount) => {
    next = `person-${accounts.size + 1}`;
    accounts.set(next, account);
  };
  return {
    issuer,
    clientId,
    clientSecret,
    willSignIn,
    async signIn(authorizationUrl, account) {
      willSignIn(account);
      const cookies = new Map<string, string>();
      let url = new URL(authorizationUrl);
      for (let hop = 0; hop < 10; hop += 1) {
        const res = await fetch(url, {
          redirect: 'manual',
          headers: { cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; ') },
        });
        for (const line of res.headers.getSetCookie()) {
          const [pair] = line.split(';');
          const at = pair.indexOf('=');
          cookies.set(pair.slice(0, at), pair.slice(at + 1));
        }
        const location = res.headers.get('location');
        if (!location) throw new Error(`${url.href}: ${res.status} ${await res.text()}`);
        url = new URL(location, url);
        if (url.origin !== issuer) return url;
      }
      throw new Error('the provider redirected too often');
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
