import standardWebhooks from 'standardwebhooks';

/** A subscription's signing secrets: the current one, and the one it replaced while it lasts. */
interface SigningSecrets {
  secret: string;
  previousSecret?: string | null;
  previousSecretExpiresAt?: Date | null;
}

interface SignatureHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/**
 * The Standard Webhooks headers of one attempt: `webhook-signature` holds one `v1,` signature
 * per live secret, space-separated, so a receiver still on the old secret after a rotation
 * keeps verifying until it expires. The library signs, so the bytes are the ones its
 * `verify` (and any other conforming library) computes.
 */
export function signatureHeaders(
  eventId: string,
  body: string,
  secrets: SigningSecrets,
  at: Date,
): SignatureHeaders {
  const live = [secrets.secret];
  if (
    secrets.previousSecret &&
    secrets.previousSecretExpiresAt &&
    secrets.previousSecretExpiresAt > at
  ) {
    live.push(secrets.previousSecret);
  }
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': live
      .map((secret) => new standardWebhooks.Webhook(secret).sign(eventId, at, body))
      .join(' '),
  };
}
