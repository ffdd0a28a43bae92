import type { NotifyEndpoints } from '../config/notify-endpoints.js';
import type { HttpSender } from './http-sender.js';

/** The vendor endpoints' defaults are configuration values (config/notify-endpoints.ts); the notifier specs take them from here. */
export { DEFAULT_ENDPOINTS } from '../config/notify-endpoints.js';

export interface VapidKeys {
  publicKey: string;
  privateKey: string;
  /** `mailto:` or `https:` contact of the operator, sent to push services. */
  subject: string;
}

/** What notifiers are built from; everything a test needs to aim them at 127.0.0.1. */
export interface NotifierDeps {
  http: HttpSender;
  endpoints: NotifyEndpoints;
  smtp: {
    /** `smtp://user:pass@host:587` (STARTTLS required) or `smtps://…:465`; null: email not configured. */
    url: string | null;
    from: string;
    /** Extra trusted CAs for the relay's certificate (tests, private PKI). */
    ca?: string[];
  };
  /** The deployment's VAPID key pair (created on first start), or null before it exists. */
  vapid: VapidKeys | null;
  /** Base URL of this Picket for links in messages, or null. */
  publicUrl: string | null;
}
