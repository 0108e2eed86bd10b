import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** A signing secret of an endpoint; a retired one still signs until `retires_at`. */
export interface SigningSecret {
  /** `whsec_` and 32 random bytes in base64, as the Standard Webhooks libraries take it. */
  readonly secret: string;
  readonly created: string;
  readonly retires_at?: string;
}

/** How long a rotated-out secret keeps signing: a day to move a receiver to the new one. */
export const ROTATION_OVERLAP_SECONDS = 86_400;

/** A new secret (`random` for tests). */
export function newSigningSecret(random: (size: number) => Buffer = randomBytes): string {
  return `whsec_${random(32).toString('base64')}`;
}

/**
 * The secrets after a rotation ([webhooks.rotation]): the new one first, the current one
 * retiring after the overlap (one already retiring keeps its time), expired ones dropped.
 * During the overlap every delivery carries a signature by each, so a receiver that knows
 * either verifies it: no gap.
 */
export function rotateSecrets(
  secrets: readonly SigningSecret[],
  fresh: string,
  now: Date,
): SigningSecret[] {
  const retires = new Date(now.getTime() + ROTATION_OVERLAP_SECONDS * 1000).toISOString();
  return [
    { secret: fresh, created: now.toISOString() },
    ...signingSecrets(secrets, now).map((each) => ({
      ...each,
      retires_at: each.retires_at ?? retires,
    })),
  ];
}

/** The secrets that sign at `now`. */
export function signingSecrets(secrets: readonly SigningSecret[], now: Date): SigningSecret[] {
  return secrets.filter(
    (each) => each.retires_at === undefined || Date.parse(each.retires_at) > now.getTime(),
  );
}

/** The Standard Webhooks headers of one delivery. */
export interface WebhookHeaders {
  readonly 'webhook-id': string;
  readonly 'webhook-timestamp': string;
  readonly 'webhook-signature': string;
}

/**
 * Signs a delivery per the Standard Webhooks specification ([webhooks.signed]) with the
 * `standardwebhooks` package: `webhook-id` the event's id (the same on every retry, so a
 * receiver drops repeats), `webhook-timestamp` the attempt's time in seconds, and one
 * `v1,<base64 HMAC-SHA256 of id.timestamp.body>` per signing secret, space-separated.
 */
export function signDelivery(
  delivery: { readonly id: string; readonly body: string; readonly at: Date },
  secrets: readonly SigningSecret[],
): WebhookHeaders {
  const signatures = signingSecrets(secrets, delivery.at).map((each) =>
    new Webhook(each.secret).sign(delivery.id, delivery.at, delivery.body),
  );
  return {
    'webhook-id': delivery.id,
    'webhook-timestamp': String(Math.floor(delivery.at.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  };
}
