import { readFileSync } from 'node:fs';
import {
  connect,
  credsAuthenticator,
  nkeyAuthenticator,
  type Authenticator,
  type NatsConnection,
  type NodeConnectionOptions,
  type Status,
  type Subscription,
} from '@nats-io/transport-node';
import { within } from './within.js';
import { maskUrlList } from './mask-url.js';

export type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';

export interface NatsLogger {
  log(message: string): void;
  warn(message: string): void;
}

export interface NatsLinkLogger extends NatsLogger {
  error(message: string): void;
}

/** How the client behaves once connected: it reconnects for ever and notices a dead server within ~30 s. */
const CLIENT_OPTIONS = {
  maxReconnectAttempts: -1,
  reconnectTimeWait: 1000,
  pingInterval: 10_000,
  maxPingOut: 3,
} satisfies NodeConnectionOptions;

/** The first connection is retried by NatsLink itself: 0.5 s, 1 s, 2 s … at most 10 s apart. */
const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 10_000;
/**
 * One connection attempt's handshake bound. The client's default (20 s) would keep the first
 * failure line that long away when the address black-holes packets; a reachable server answers
 * within milliseconds, even across regions.
 */
const ATTEMPT_TIMEOUT_MS = 5000;
/**
 * A drain flushes pending messages and waits for the server's answer; during an outage that
 * answer never comes, and a process must not hang on its way out because NATS is away.
 */
const DRAIN_BOUND_MS = 5000;

/**
 * Connects to NATS and keeps reconnecting for ever (the first connection included), logging
 * each failure, disconnect and reconnect. Blocks until connected: for tests and tools that need
 * a connection before they can do anything. The apps use NatsLink itself, which never blocks.
 */
export function connectNats(
  servers: string,
  name: string,
  logger: NatsLogger,
  security?: NatsSecurity,
): Promise<NatsConnection> {
  const link = new NatsLink(
    servers,
    name,
    { ...logger, error: (m) => logger.warn(m) },
    { connectTimeoutSeconds: 0, onGiveUp: () => undefined, security },
  );
  link.start();
  return link.whenConnected();
}

export type NatsLinkState = 'connecting' | 'connected' | 'reconnecting' | 'closed';

export interface NatsLinkOptions {
  /** Seconds the first connection may keep failing before `onGiveUp`; 0 keeps trying for ever. */
  connectTimeoutSeconds: number;
  /** Called once when the first connection could not be made in time (the link is closed by then). */
  onGiveUp(message: string): void;
  /** Credentials and TLS files besides those in the URL (the NATS_* variables, natsSecurityOf). */
  security?: NatsSecurity;
}

/**
 * How a link authenticates and what it trusts, besides what the server URLs say
 * (docs/decisions/0019-securing-nats.md). At most one way to authenticate; the configuration
 * refuses more. Files are named, not read here: the client reads them at every (re)connection,
 * so a rotated certificate or creds file is used from the next reconnection on.
 */
export interface NatsSecurity {
  user?: string;
  pass?: string;
  token?: string;
  /** An NKey/JWT `.creds` file, or a file holding only an NKey user seed (`SU…`). */
  credsFile?: string;
  /** PEM CA bundle the server's certificate must chain to (default: the system's CAs). */
  caFile?: string;
  /** PEM client certificate and its key, for servers that verify clients. */
  certFile?: string;
  keyFile?: string;
}

/**
 * A process's one NATS connection, made in the background so that nothing waits for it: the
 * HTTP server, health and readiness come up while NATS is unreachable, and say so. The first
 * connection is retried here (the client would wait silently) with every failure logged and its
 * reason; once connected, the client's own reconnection takes over. `connected` is the truth at
 * this moment: false from the instant the connection drops until it is back.
 */
export class NatsLink {
  private current: NatsConnection | null = null;
  private linkState: NatsLinkState = 'connecting';
  private problem: string | null = null;
  private started = false;
  /** Set by drain() and close(): a closed connection was wanted, not lost. */
  private closing = false;
  private readonly whenUp: ((nc: NatsConnection) => void)[] = [];
  private readonly whenGone: ((error: Error) => void)[] = [];
  private giveUpTimer: NodeJS.Timeout | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private wakeRetry: (() => void) | null = null;
  /** The servers with any credentials masked: the only form of the URL that is ever logged. */
  readonly display: string;

  constructor(
    private readonly servers: string,
    private readonly name: string,
    private readonly logger: NatsLinkLogger,
    private readonly options: NatsLinkOptions,
  ) {
    this.display = maskUrlList(servers);
  }

  /** True only while the connection is up. */
  get connected(): boolean {
    return this.linkState === 'connected';
  }

  get state(): NatsLinkState {
    return this.linkState;
  }

  /**
   * Why the link is not (or was not) connected: the last connect failure with its reason, the lost
   * connection, a server error. Cleared when the link (re)connects.
   */
  get lastError(): string | null {
    return this.problem;
  }

  /**
   * Null while connected; otherwise what readiness reports: the state, with the last error when
   * there is one (`connecting: connection refused (ECONNREFUSED)`).
   */
  get problemNow(): string | null {
    if (this.connected) return null;
    return this.problem ? `${this.linkState}: ${this.problem}` : this.linkState;
  }

  /** The client, from the first connection on (also while it reconnects); null before. */
  get connection(): NatsConnection | null {
    return this.current;
  }

  /** Begins connecting in the background and returns at once; a second call does nothing. */
  start(): void {
    if (this.started || this.linkState === 'closed') return;
    this.started = true;
    this.logger.log(`connecting to NATS ${this.display}`);
    const seconds = this.options.connectTimeoutSeconds;
    if (seconds > 0) this.giveUpTimer = setTimeout(() => this.giveUp(seconds), seconds * 1000);
    void this.connectLoop();
  }

  /**
   * Calls `callback` once with the client when the link first connects, or at once if it has.
   * Subscriptions made there survive reconnections (the client renews them).
   */
  onConnected(callback: (nc: NatsConnection) => void): void {
    if (this.current) this.call(callback, this.current);
    else if (this.linkState !== 'closed') this.whenUp.push(callback);
  }

  /** The client once first connected; rejects if the link is closed (or gives up) before that. */
  whenConnected(): Promise<NatsConnection> {
    if (this.current) return Promise.resolve(this.current);
    if (this.linkState === 'closed') return Promise.reject(new Error(this.closedBeforeConnecting()));
    return new Promise((resolve, reject) => {
      this.whenUp.push(resolve);
      this.whenGone.push(reject);
    });
  }

  /**
   * Stops connecting, or drains the connection: subscriptions stop, pending messages are sent,
   * then it closes. Bounded, and a plain close when NATS is away (nothing could be flushed).
   */
  async drain(): Promise<void> {
    this.stopConnecting();
    const nc = this.current;
    if (!nc || nc.isClosed()) return;
    if (this.connected && !nc.isDraining())
      await within(
        nc.drain().catch(() => undefined),
        DRAIN_BOUND_MS,
        undefined,
      );
    if (!nc.isClosed()) await nc.close().catch(() => undefined);
  }

  /**
   * Drains subscriptions (messages already delivered are still handled, no new ones come), bounded
   * like drain(); while the link is not connected they are only unsubscribed (nothing can arrive).
   */
  async drainSubscriptions(subscriptions: readonly Subscription[]): Promise<void> {
    if (!this.connected) {
      for (const s of subscriptions) if (!s.isClosed()) s.unsubscribe();
      return;
    }
    await within(Promise.all(subscriptions.map((s) => s.drain().catch(() => undefined))), DRAIN_BOUND_MS, undefined);
  }

  /** Stops connecting, or closes the connection at once (pending messages are dropped). */
  async close(): Promise<void> {
    this.stopConnecting();
    if (this.current && !this.current.isClosed()) await this.current.close().catch(() => undefined);
  }

  private async connectLoop(): Promise<void> {
    let retryMs = FIRST_RETRY_MS;
    while (this.linkState === 'connecting') {
      let nc: NatsConnection;
      try {
        nc = await connect({
          ...natsClientOptions(this.servers, this.options.security),
          name: this.name,
          timeout: ATTEMPT_TIMEOUT_MS,
          ...CLIENT_OPTIONS,
        });
      } catch (error) {
        if (this.linkState !== 'connecting') return;
        this.problem = describeNatsError(error);
        this.logger.warn(`NATS ${this.display} not reachable: ${this.problem}; next attempt in ${retryMs / 1000} s`);
        await this.pause(retryMs);
        retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
        continue;
      }
      // Closed or given up while the attempt was under way: nobody wants this connection.
      if (this.linkState !== 'connecting') {
        await nc.close().catch(() => undefined);
        return;
      }
      this.adopt(nc);
    }
  }

  private adopt(nc: NatsConnection): void {
    this.current = nc;
    this.linkState = 'connected';
    this.problem = null;
    this.clearGiveUp();
    this.logger.log(`connected to NATS ${nc.getServer()}`);
    this.follow(nc).catch((error: unknown) => {
      this.logger.error(`NATS status events stopped: ${describeNatsError(error)}`);
    });
    void nc.closed().then((error) => {
      this.linkState = 'closed';
      if (error) this.problem = describeNatsError(error);
      // Closed with an error and not by us: the client stops reconnecting only on repeated
      // authentication failures, so say it loudly. A plain close() of the client is no news.
      if (!this.closing && error) {
        this.logger.error(
          `NATS connection closed for good (${this.problem}); restart this process once NATS accepts it`,
        );
      }
    });
    this.whenGone.length = 0;
    for (const callback of this.whenUp.splice(0)) this.call(callback, nc);
  }

  /** Follows the client's status events: `connected` must turn false the moment the connection drops. */
  private async follow(nc: NatsConnection): Promise<void> {
    for await (const status of nc.status()) this.onStatus(status);
  }

  private onStatus(status: Status): void {
    if (this.linkState === 'closed') return;
    switch (status.type) {
      case 'disconnect':
        this.linkState = 'reconnecting';
        this.problem = `connection to ${status.server} lost`;
        this.logger.warn(`NATS connection lost (${status.server}); reconnecting`);
        break;
      case 'reconnect':
        this.linkState = 'connected';
        this.problem = null;
        this.logger.log(`NATS reconnected (${status.server})`);
        break;
      case 'error':
        this.problem = describeNatsError(status.error);
        this.logger.warn(`NATS server error: ${this.problem}`);
        break;
      case 'staleConnection':
        this.logger.warn('NATS server stopped answering pings; reconnecting');
        break;
      default:
        break;
    }
  }

  private giveUp(seconds: number): void {
    this.giveUpTimer = null;
    if (this.linkState !== 'connecting') return;
    const message =
      `gave up connecting to NATS ${this.display} after ${seconds} s ` +
      `(last error: ${this.problem ?? 'no answer yet'}); check NATS_URL and that the server is reachable ` +
      `from here, or raise NATS_CONNECT_TIMEOUT_SECONDS (0 keeps trying for ever)`;
    this.stopConnecting();
    this.options.onGiveUp(message);
  }

  /** Ends a first-connection loop still under way (the state becomes closed); no-op once connected. */
  private stopConnecting(): void {
    this.started = true;
    this.closing = true;
    this.clearGiveUp();
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.wakeRetry?.();
    if (this.current) return;
    this.linkState = 'closed';
    this.whenUp.length = 0;
    const error = new Error(this.closedBeforeConnecting());
    for (const reject of this.whenGone.splice(0)) reject(error);
  }

  private pause(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      this.wakeRetry = () => resolve();
      this.retryTimer = setTimeout(resolve, ms);
    }).then(() => {
      this.wakeRetry = null;
      this.retryTimer = null;
    });
  }

  private clearGiveUp(): void {
    if (this.giveUpTimer) clearTimeout(this.giveUpTimer);
    this.giveUpTimer = null;
  }

  private closedBeforeConnecting(): string {
    return `the NATS link to ${this.display} was closed before it connected`;
  }

  private call(callback: (nc: NatsConnection) => void, nc: NatsConnection): void {
    try {
      callback(nc);
    } catch (error) {
      this.logger.error(`NATS on-connect step failed: ${error instanceof Error ? error.stack : String(error)}`);
    }
  }
}

/** `scheme://userinfo@` at the start of one server entry (the scheme is optional, as for the client). */
const USERINFO = /^([a-z][a-z0-9+.-]*:\/\/)?([^/?#]*)@/i;

type ClientSecurityOptions = Pick<
  NodeConnectionOptions,
  'servers' | 'user' | 'pass' | 'token' | 'authenticator' | 'tls'
>;

/**
 * The client's `servers`, credentials and TLS. nats.js ignores credentials in a server URL (it
 * keeps only host and port), so `nats://user:pass@host` or `nats://token@host` are turned into
 * its user/pass or token options: the first entry that has any speaks for the whole list (one
 * client authenticates one way). nats.js also ignores the `tls://` scheme: TLS is required here
 * (the `tls` option) when an entry says `tls://` or a CA or client certificate is given; without
 * it the client still upgrades when the server asks for TLS, but then trusts only the system's CAs.
 */
export function natsClientOptions(servers: string, security: NatsSecurity = {}): ClientSecurityOptions {
  const entries = splitServers(servers);
  const fromUrl = urlCredentials(entries);
  const plain = entries.map((server) => server.replace(USERINFO, (_all, scheme: string | undefined) => scheme ?? ''));
  const options: ClientSecurityOptions = { servers: plain };
  if (security.credsFile) options.authenticator = credsFileAuthenticator(security.credsFile);
  else if (security.token) options.token = security.token;
  else if (security.user !== undefined) Object.assign(options, { user: security.user, pass: security.pass ?? '' });
  else Object.assign(options, fromUrl);
  const wantsTls = entries.some((server) => /^tls:\/\//i.test(server)) || Boolean(security.caFile ?? security.certFile);
  if (wantsTls) {
    options.tls = {
      ...(security.caFile ? { caFile: security.caFile } : {}),
      ...(security.certFile ? { certFile: security.certFile, keyFile: security.keyFile } : {}),
    };
  }
  return options;
}

/** The credentials written in the server URLs (the first entry that has any), decoded. */
export function urlCredentials(
  servers: string | readonly string[],
): Pick<NodeConnectionOptions, 'user' | 'pass' | 'token'> {
  const entries = typeof servers === 'string' ? splitServers(servers) : servers;
  for (const server of entries) {
    const userinfo = USERINFO.exec(server)?.[2];
    if (userinfo === undefined) continue;
    const colon = userinfo.indexOf(':');
    return colon === -1
      ? { token: decodeURIComponent(userinfo) }
      : { user: decodeURIComponent(userinfo.slice(0, colon)), pass: decodeURIComponent(userinfo.slice(colon + 1)) };
  }
  return {};
}

/** NKey user seeds: `SU` and base32 (what `nk -gen user` writes). */
const USER_SEED = /^SU[A-Z2-7]{50,}$/;

/**
 * Signs the server's challenge with the key in `path`, read at every connection: a `.creds` file
 * (the user JWT and its NKey seed, decentralised auth) or a bare NKey user seed (an `nkey:` user
 * in the server's configuration). Throws, naming no secret, when the file holds neither.
 */
export function credsFileAuthenticator(path: string): Authenticator {
  return (nonce?: string) => {
    const content = readFileSync(path);
    const text = content.toString('utf8').trim();
    if (USER_SEED.test(text)) return nkeyAuthenticator(new TextEncoder().encode(text))(nonce);
    if (text.includes('-----BEGIN NATS USER JWT-----')) return credsAuthenticator(content)(nonce);
    throw new Error(`${path} holds neither NATS user credentials (.creds) nor an NKey user seed`);
  };
}

function splitServers(servers: string): string[] {
  return servers
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** A connect or server error in a few words, with the system error code when there is one (ECONNREFUSED). */
export function describeNatsError(error: unknown): string {
  const e = error as { message?: unknown; code?: unknown; cause?: { code?: unknown; message?: unknown } } | null;
  const message = typeof e?.message === 'string' && e.message !== '' ? e.message : String(error);
  const code = [e?.code, e?.cause?.code].find((c): c is string => typeof c === 'string' && c !== '');
  return code && !message.includes(code) ? `${message} (${code})` : message;
}
