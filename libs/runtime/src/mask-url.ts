/**
 * Credentials in URL-valued settings (DATABASE_URL, SMTP_URL, NATS_URL), masked for boot
 * refusals and logs: the only form of those values Picket ever shows.
 *
 * The userinfo of a URL ends at the last `@` of its authority, which ends at the first `/`, `?`
 * or `#` (the WHATWG URL rule): `postgres://app:p@ss,w0rd@db:5432/picket` shows as
 * `postgres://app:***@db:5432/picket`. A password holding `/`, `?` or `#` is not a valid URL
 * (WHATWG would read a port or a path out of it), so when an `@` comes after the authority the
 * mask is conservative: everything between `://` and the last `@` is hidden, user name included.
 * A user name without a password (`nats://token@host`) may be a token: hidden too.
 */
export function maskUrlCredentials(value: string): string {
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(value)?.[0] ?? '';
  const rest = value.slice(scheme.length);
  const at = rest.lastIndexOf('@');
  if (at === -1) return value;
  const userinfo = rest.slice(0, at);
  const authorityEnd = rest.search(/[/?#]/);
  if (authorityEnd !== -1 && authorityEnd < at) {
    // Without a scheme, a `/` before the `@` is a path (`sqlite:/srv/a@b.db`), not a password.
    return scheme === '' ? value : `${scheme}***@${rest.slice(at + 1)}`;
  }
  const colon = userinfo.indexOf(':');
  return `${scheme}${colon === -1 ? '***' : `${userinfo.slice(0, colon)}:***`}@${rest.slice(at + 1)}`;
}

/** `host[:port]` of a server entry: a name, an IPv4 address or a bracketed IPv6 address. */
const SERVER = /^(?:[a-z][a-z0-9+.-]*:\/\/)?(?:[^@]*@)?(?:[a-z0-9._-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?\/?$/i;

/**
 * A comma-separated server list (NATS_URL) with each entry's credentials masked. A password
 * holding a comma would split an entry in two: when any entry is not `[scheme://][userinfo@]host[:port]`,
 * the whole list is masked as one URL (everything between the first `://` and the last `@`).
 */
export function maskUrlList(list: string): string {
  const entries = list
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (entries.every((entry) => SERVER.test(entry))) return entries.map(maskUrlCredentials).join(', ');
  return maskUrlCredentials(list.trim());
}
