/**
 * CORS_ORIGINS: the browser origins that may call `/api` cross-origin
 * (docs/decisions/0017-http-edge-hardening.md). Comma-separated `scheme://host[:port]`, each
 * exactly as a browser sends it in `Origin` (http or https, no path, no trailing slash).
 */

/** The origins, lower-cased and deduplicated, or a sentence naming the first bad entry. */
export function parseCorsOrigins(text: string): ReadonlySet<string> | string {
  const origins = new Set<string>();
  for (const raw of text.split(',')) {
    const entry = raw.trim();
    if (entry === '') continue;
    let url: URL;
    try {
      url = new URL(entry);
    } catch {
      return `"${entry}" is not an origin such as https://dash.example.com`;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return `"${entry}" is not an http(s) origin`;
    // url.origin drops the default port and lower-cases; anything else left over (a path, a
    // query, credentials, a trailing slash) is not an origin.
    if (url.origin !== entry.toLowerCase() && url.origin !== entry.toLowerCase().replace(/:(80|443)$/, '')) {
      return `"${entry}" must be scheme://host[:port] only, with no path or trailing slash`;
    }
    origins.add(url.origin);
  }
  return origins;
}
