/**
 * Short, human reasons for the socket errors every prober meets, by Node error code: one
 * table, so the same failure reads the same in every check result.
 */

/** Resolution failures: DOWN in the dns phase. */
export const DNS_ERRORS: Readonly<Record<string, string>> = {
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'DNS lookup failed temporarily',
  EAI_FAIL: 'DNS lookup failed',
  EAI_NODATA: 'host name has no address',
  ENODATA: 'host name has no address',
  ESERVFAIL: 'DNS server failure',
  ETIMEOUT: 'DNS lookup timed out',
};

/** Failures to establish a connection: DOWN in the connect phase. (Resets are judged per prober.) */
export const CONNECT_ERRORS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNABORTED: 'connection aborted',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EHOSTDOWN: 'host is down',
  ENETDOWN: 'network is down',
  EADDRNOTAVAIL: 'no local address to connect from',
  ETIMEDOUT: 'connection timed out',
  EACCES: 'connection not permitted',
  EPERM: 'connection not permitted',
};
