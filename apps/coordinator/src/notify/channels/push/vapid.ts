import webpush from 'web-push';

export interface VapidKeyPair {
  /** base64url of the 65-byte uncompressed P-256 point: the browser's `applicationServerKey`. */
  publicKey: string;
  /** base64url of the 32-byte private scalar. */
  privateKey: string;
}

/**
 * A new VAPID key pair (P-256) for this deployment, created once and stored
 * (docs/decisions/0011-notification-channels.md §14).
 */
export function generateVapidKeys(): VapidKeyPair {
  const { publicKey, privateKey } = webpush.generateVAPIDKeys();
  return { publicKey, privateKey };
}
