/**
 * Webhook signatures as the Standard Webhooks specification writes them, by
 * its reference package (`standardwebhooks`), so that any receiver using a
 * Standard Webhooks library verifies our deliveries without custom code:
 * `webhook-id`, `webhook-timestamp` (integer seconds) and `webhook-signature`,
 * an HMAC-SHA256 of `id.timestamp.payload` as `v1,<base64>`.
 *
 * A subscription may hold more than one secret while its secret is rotated:
 * every secret signs, the signatures separated by spaces, and the receiver
 * accepts a delivery when any of them matches the secret it knows.
 */
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

export const SECRET_PREFIX = 'whsec_';
/** 32 random bytes: the length of an HMAC-SHA256 key, within the specification's 24 to 64. */
const SECRET_BYTES = 32;

export type SignatureHeaders = Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string>;

/** A new signing secret, `whsec_` and the base64 of 32 random bytes; shown to its owner once. */
export function newSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString('base64')}`;
}

/**
 * The three headers of one delivery attempt. Every attempt of a message keeps
 * its id (receivers deduplicate on it) and is signed again with the attempt's
 * own timestamp, since receivers refuse timestamps more than five minutes old.
 * Throws on no secret or one that is not `whsec_` and base64 (newSecret's are):
 * the subscription's store is broken then, and nothing should be sent unsigned.
 */
export function signatureHeaders(input: {
  id: string;
  timestamp: Date;
  payload: string;
  secrets: readonly string[];
}): SignatureHeaders {
  if (input.secrets.length === 0) throw new Error(`webhook message ${input.id}: no secret to sign it with`);
  const signatures = input.secrets.map((secret) =>
    new Webhook(secret).sign(input.id, input.timestamp, input.payload),
  );
  return {
    'webhook-id': input.id,
    'webhook-timestamp': String(Math.floor(input.timestamp.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  };
}
