import { randomBytes } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import standardWebhooks from 'standardwebhooks';
import { signatureHeaders } from './webhook-signature.js';

const { Webhook, WebhookVerificationError } = standardWebhooks;
const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;
const body = JSON.stringify({
  type: 'pet.created',
  timestamp: '2026-01-01T00:00:00.000Z',
  data: { id: 1 },
});
const eventId = 'evt_0123456789';

describe(signatureHeaders.name, () => {
  it('should sign so that the standardwebhooks library verifies the delivery', () => {
    const secret = newSecret();
    const now = new Date();

    const headers = signatureHeaders(eventId, body, { secret }, now);

    expect(headers['webhook-id']).toBe(eventId);
    expect(headers['webhook-timestamp']).toBe(String(Math.floor(now.getTime() / 1000)));
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(secret).verify(body, { ...headers })).toEqual(JSON.parse(body));
  });

  it('should fail verification with another secret or another body', () => {
    const signing = newSecret();
    const headers = { ...signatureHeaders(eventId, body, { secret: signing }, new Date()) };

    expect(() => new Webhook(newSecret()).verify(body, headers)).toThrow(WebhookVerificationError);
    expect(() => new Webhook(signing).verify(`${body} `, headers)).toThrow(
      WebhookVerificationError,
    );
  });

  it('should sign with both secrets while the previous one has not expired, so either verifies', () => {
    const secret = newSecret();
    const previousSecret = newSecret();
    const now = new Date();
    const previousSecretExpiresAt = new Date(now.getTime() + 60_000);

    const headers = {
      ...signatureHeaders(eventId, body, { secret, previousSecret, previousSecretExpiresAt }, now),
    };

    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(previousSecret).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it('should stop signing with the previous secret once it has expired', () => {
    const secret = newSecret();
    const previousSecret = newSecret();
    const now = new Date();

    const headers = {
      ...signatureHeaders(
        eventId,
        body,
        { secret, previousSecret, previousSecretExpiresAt: new Date(now.getTime() - 1) },
        now,
      ),
    };

    expect(headers['webhook-signature'].split(' ')).toHaveLength(1);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(previousSecret).verify(body, headers)).toThrow(
      WebhookVerificationError,
    );
  });
});
