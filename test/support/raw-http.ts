import { request } from 'node:http';
import { connect } from 'node:net';

/** What came back on a raw connection, and whether (and when) the server closed it. */
export interface RawExchange {
  /** Every byte received, as latin1 text. */
  received: string;
  /** Milliseconds from connecting until the server closed the connection; null when it was still open. */
  closedAfterMs: number | null;
}

export interface RawResponse {
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: string;
}

/**
 * Opens a TCP connection to 127.0.0.1:port, writes `head`, then `drip` every `dripEveryMs`
 * (when given) until the server closes the connection or `waitMs` has passed, and gives what
 * came back. `waitMs` is only a bound: the exchange ends as soon as the server closes.
 */
export function rawExchange(
  port: number,
  head: string | Buffer,
  options: { waitMs?: number; drip?: string; dripEveryMs?: number } = {},
): Promise<RawExchange> {
  const { waitMs = 3000, drip, dripEveryMs = 100 } = options;
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let dripping: NodeJS.Timeout | undefined;
    let settled = false;
    const finish = (closed: boolean) => {
      if (settled) return;
      settled = true;
      clearInterval(dripping);
      clearTimeout(bound);
      socket.destroy();
      resolve({
        received: Buffer.concat(chunks).toString('latin1'),
        closedAfterMs: closed ? Date.now() - started : null,
      });
    };
    const bound = setTimeout(() => finish(false), waitMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('close', () => finish(true));
    // A reset after the server's answer is a close too.
    socket.on('error', () => undefined);
    socket.on('connect', () => {
      if (head.length > 0) socket.write(head);
      if (drip !== undefined) {
        dripping = setInterval(() => {
          if (socket.writable) socket.write(drip);
        }, dripEveryMs);
      }
    });
  });
}

/** The first HTTP/1.1 response in `text` (a body read by Content-Length), or null when there is none. */
export function parseRawResponse(text: string): RawResponse | null {
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const [statusLine = '', ...lines] = text.slice(0, end).split('\r\n');
  const match = /^HTTP\/1\.1 (\d{3})/.exec(statusLine);
  if (!match) return null;
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  const length = Number(headers['content-length'] ?? 0);
  const body = Buffer.from(text.slice(end + 4), 'latin1')
    .subarray(0, length)
    .toString('utf8');
  return { status: Number(match[1]), headers, body };
}

export interface PlainAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON, or undefined for an empty or non-JSON body. */
  body: any;
  text: string;
}

/**
 * One request with node:http, which sends any method token and any header as given (fetch
 * refuses TRACE, CONNECT and a Host of our choosing).
 */
export function plainRequest(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<PlainAnswer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        let parsed: unknown;
        try {
          parsed = text === '' ? undefined : JSON.parse(text);
        } catch {
          parsed = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed, text });
      });
    });
    req.once('error', reject);
    req.end(body);
  });
}
