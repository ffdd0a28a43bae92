import type { CoordinatorConfig } from '../config.js';

/**
 * Where people reach this Picket, for the links it prints (setup, set-password): PUBLIC_URL, or
 * the listen address (`localhost` for a wildcard HOST), https when TLS is configured.
 */
export function publicBase(config: Pick<CoordinatorConfig, 'PUBLIC_URL' | 'HOST' | 'PORT' | 'TLS_CERT_FILE'>): string {
  if (config.PUBLIC_URL) return config.PUBLIC_URL.replace(/\/+$/, '');
  const host = ['', '0.0.0.0', '::', '[::]'].includes(config.HOST)
    ? 'localhost'
    : config.HOST.includes(':')
      ? `[${config.HOST}]`
      : config.HOST;
  return `${config.TLS_CERT_FILE ? 'https' : 'http'}://${host}:${config.PORT}`;
}

/** The dashboard page that takes a one-time token: `/setup` (first admin) or `/set-password` (invite, reset). */
export function tokenUrl(base: string, page: 'setup' | 'set-password', token: string): string {
  return `${base}/${page}?token=${token}`;
}
