import {
  createTransport,
  type NodemailerError,
  type SMTPPoolOptions,
  type SMTPPoolSentMessageInfo,
  type Transporter,
} from 'nodemailer';
import { rootCertificates } from 'node:tls';
import type { ChannelDetails } from '../../../contacts/channels.js';
import { safeTarget } from '../../message-parts.js';
import { NOTIFY_USER_AGENT } from '../../http-sender.js';
import type { NotificationEvent } from '../../notification-event.js';
import type { NotifierDeps } from '../../notifier-deps.js';
import type { DeliveryClass, DeliveryOutcome, Notifier } from '../../notifier.js';
import { downWord, escapeHtml, headline, humanDuration, isDownEvent, isoUtc, oneLine, truncate } from '../../text.js';

/**
 * `email` (docs/decisions/0011-notification-channels.md §6): one pooled nodemailer transporter
 * over Picket's SMTP relay (SMTP_URL, SMTP_FROM). A DOWN mail carries a fixed Message-ID,
 * returned as `ref`; the UP mail of the same outage answers it (In-Reply-To / References), so
 * mail clients thread the pair.
 */

/** Timeouts (nodemailer's defaults are 120 s, 30 s and 600 s). */
export const SMTP_TIMEOUTS = { connectionMs: 10_000, greetingMs: 10_000, socketMs: 30_000, dnsMs: 10_000 } as const;

const MAX_SUBJECT = 200;
const MAX_VALUE = 1000;

export interface EmailNotifier extends Notifier<'email'> {
  /**
   * Connects and logs in once (startup check of SMTP_URL): `ok`, `config` (not configured, login or
   * TLS refused) or `retry` (relay unreachable). Never throws.
   */
  verify(): Promise<DeliveryOutcome>;
  close(): Promise<void>;
}

type Pool = Transporter<SMTPPoolSentMessageInfo, SMTPPoolOptions>;

export function createEmailNotifier(deps: NotifierDeps): EmailNotifier {
  let pool: Pool | undefined;

  /** The transporter, built on first use; a string is the configuration problem. */
  const transporter = (): Pool | string => {
    if (pool) return pool;
    const options = transportOptions(deps.smtp.url, deps.smtp.ca);
    if (typeof options === 'string') return options;
    const created = createTransport(options);
    // Connection failures reach the send callbacks; never let a stray 'error' event end the process.
    created.on('error', () => undefined);
    pool = created;
    return created;
  };

  return {
    async deliver(details: ChannelDetails['email'], event: NotificationEvent, context): Promise<DeliveryOutcome> {
      const sender = transporter();
      if (typeof sender === 'string') return { class: 'config', status: null, detail: sender };
      const message = buildEmail(event, deps);
      try {
        const info = await sender.sendMail({
          from: deps.smtp.from,
          to: details.email,
          subject: message.subject,
          text: message.text,
          html: message.html,
          messageId: message.messageId,
          ...(message.inReplyTo ? { inReplyTo: message.inReplyTo, references: [message.inReplyTo] } : {}),
          headers: { 'Auto-Submitted': 'auto-generated', 'X-Auto-Response-Suppress': 'OOF, AutoReply' },
          xMailer: NOTIFY_USER_AGENT,
          date: new Date(context.now()),
          disableFileAccess: true,
          disableUrlAccess: true,
          signal: context.signal,
        });
        const status = replyStatus(info.response) ?? 250;
        const outcome: DeliveryOutcome = { class: 'ok', status, detail: 'accepted by the SMTP relay' };
        if (event.event === 'monitor.down') outcome.ref = message.messageId;
        return outcome;
      } catch (error) {
        return smtpOutcome(error);
      }
    },

    async verify(): Promise<DeliveryOutcome> {
      const sender = transporter();
      if (typeof sender === 'string') return { class: 'config', status: null, detail: sender };
      try {
        await sender.verify();
        return { class: 'ok', status: null, detail: 'SMTP relay reachable, login accepted' };
      } catch (error) {
        return smtpOutcome(error);
      }
    },

    async close(): Promise<void> {
      const current = pool;
      pool = undefined;
      current?.close();
    },
  };
}

// ---- transport -------------------------------------------------------------------------

/**
 * Pool options from SMTP_URL: `smtp://` is STARTTLS (required), `smtps://` implicit TLS; user and
 * password from the URL (percent-decoded). Extra CAs are added to Node's bundled roots.
 */
export function transportOptions(url: string | null, ca?: string[]): (SMTPPoolOptions & { pool: true }) | string {
  if (url === null || url.trim() === '') return 'no SMTP relay configured (SMTP_URL)';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'SMTP_URL is not a valid smtp:// or smtps:// URL';
  }
  if (parsed.protocol !== 'smtp:' && parsed.protocol !== 'smtps:') {
    return 'SMTP_URL must start with smtp:// (STARTTLS) or smtps:// (implicit TLS)';
  }
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  if (host === '') return 'SMTP_URL has no host';
  const secure = parsed.protocol === 'smtps:';
  let user: string;
  let pass: string;
  try {
    user = decodeURIComponent(parsed.username);
    pass = decodeURIComponent(parsed.password);
  } catch {
    return 'SMTP_URL has a malformed user name or password';
  }
  return {
    pool: true,
    maxConnections: 5,
    // A pooled connection the relay closed while idle is reopened once; everything else is the
    // dispatcher's to retry.
    maxRequeues: 1,
    host,
    port: parsed.port ? Number(parsed.port) : secure ? 465 : 587,
    secure,
    requireTLS: !secure,
    ...(user ? { auth: { user, pass } } : {}),
    connectionTimeout: SMTP_TIMEOUTS.connectionMs,
    greetingTimeout: SMTP_TIMEOUTS.greetingMs,
    socketTimeout: SMTP_TIMEOUTS.socketMs,
    dnsTimeout: SMTP_TIMEOUTS.dnsMs,
    tls: {
      minVersion: 'TLSv1.2',
      rejectUnauthorized: true,
      ...(ca?.length ? { ca: [...rootCertificates, ...ca] } : {}),
    },
    logger: false,
    debug: false,
  };
}

// ---- message ---------------------------------------------------------------------------

export interface EmailMessage {
  subject: string;
  text: string;
  html: string;
  /** With angle brackets. */
  messageId: string;
  inReplyTo: string | null;
}

/** The domain of Picket's Message-IDs: the host of PUBLIC_URL, else `picket.local`. */
export function messageIdDomain(publicUrl: string | null): string {
  if (publicUrl) {
    try {
      const host = new URL(publicUrl).hostname;
      if (/^[A-Za-z0-9.-]+$/.test(host)) return host;
    } catch {
      // fall through
    }
  }
  return 'picket.local';
}

/** `[DOWN] API (prod): HTTP 503`, `[UP] API (prod): down 12 min`, … on one line. */
export function emailSubject(event: NotificationEvent): string {
  const name = oneLine(event.monitor.name);
  let subject: string;
  switch (event.event) {
    case 'monitor.down':
    case 'monitor.down.reminder':
      subject = `[${downWord(event.event)}] ${name}: ${oneLine(event.error ?? '') || 'down'}`;
      break;
    case 'monitor.up':
      subject =
        event.durationSeconds === null
          ? `[UP] ${name}: recovered`
          : `[UP] ${name}: down ${humanDuration(event.durationSeconds)}`;
      break;
    case 'certificate.expiring':
      subject = `[CERT] ${name}: ${certificateText(event)}`;
      break;
    default:
      subject = '[TEST] Test notification from Picket';
  }
  return truncate(oneLine(subject), MAX_SUBJECT);
}

export function buildEmail(event: NotificationEvent, deps: Pick<NotifierDeps, 'publicUrl'>): EmailMessage {
  const domain = messageIdDomain(deps.publicUrl);
  const safeId = (id: string) => id.replace(/[^A-Za-z0-9_-]/g, '');
  let messageId: string;
  if (event.event === 'monitor.down' && event.incidentId)
    messageId = `<inc-${safeId(event.incidentId)}-down@${domain}>`;
  else if (event.event === 'monitor.up' && event.incidentId)
    messageId = `<inc-${safeId(event.incidentId)}-up@${domain}>`;
  // The outbox row id: identical on every retry of the same event.
  else messageId = `<evt-${safeId(event.id)}@${domain}>`;
  // A reminder and the recovery answer the outage's first message (one thread per outage).
  const openRef = event.event !== 'monitor.down' && event.openRef ? oneLine(event.openRef) : '';

  const title = headline(event);
  const rows = factRows(event);
  const intro =
    event.event === 'contact.test'
      ? 'This is a test notification from Picket: email delivery to this address works.'
      : null;

  const textLines = [title, ''];
  if (intro) textLines.push(intro, '');
  for (const row of rows) {
    if (typeof row.value === 'string') textLines.push(`${row.label}: ${row.value}`);
    else {
      textLines.push(`${row.label}:`);
      for (const item of row.value) textLines.push(`  - ${item}`);
    }
  }
  if (event.link) textLines.push('', `Open the monitor: ${oneLine(event.link)}`);
  textLines.push('', '-- ', 'Sent by Picket, the uptime monitor, to a notification contact.');

  const cell = (value: string | string[]) =>
    typeof value === 'string'
      ? escapeHtml(value)
      : `<ul style="margin:0;padding-left:1.2em">${value.map((item) => `<li>${escapeHtml(item)}</li>`).join('')}</ul>`;
  const colour = isDownEvent(event.event) ? '#b3261e' : event.event === 'monitor.up' ? '#1e7b34' : '#8a5a00';
  const html = [
    '<!DOCTYPE html>',
    '<html><head><meta charset="utf-8"></head>',
    '<body style="font-family:Arial,Helvetica,sans-serif;font-size:14px;color:#222">',
    `<h2 style="color:${colour};margin:0 0 12px">${escapeHtml(title)}</h2>`,
    intro ? `<p>${escapeHtml(intro)}</p>` : '',
    rows.length
      ? `<table cellpadding="4" cellspacing="0">${rows
          .map(
            (row) => `<tr><th align="left" valign="top">${escapeHtml(row.label)}</th><td>${cell(row.value)}</td></tr>`,
          )
          .join('')}</table>`
      : '',
    event.link ? `<p><a href="${escapeHtml(oneLine(event.link))}">Open the monitor in Picket</a></p>` : '',
    '<p style="color:#777;font-size:12px">Sent by Picket, the uptime monitor, to a notification contact.</p>',
    '</body></html>',
  ]
    .filter((part) => part !== '')
    .join('\n');

  return {
    subject: emailSubject(event),
    text: `${textLines.join('\n')}\n`,
    html,
    messageId,
    inReplyTo: openRef || null,
  };
}

interface FactRow {
  label: string;
  value: string | string[];
}

function factRows(event: NotificationEvent): FactRow[] {
  if (event.event === 'contact.test') return [];
  const value = (text: string) => truncate(oneLine(text), MAX_VALUE);
  const rows: FactRow[] = [
    { label: 'Monitor', value: value(event.monitor.name) },
    { label: 'Target', value: value(safeTarget(event.monitor.target)) },
  ];
  switch (event.event) {
    case 'monitor.down':
    case 'monitor.down.reminder':
      rows.push({ label: 'State', value: downWord(event.event) });
      rows.push({ label: 'Cause', value: value(event.error ?? 'unknown') });
      rows.push({ label: 'Down since', value: `${isoUtc(event.startedAt ?? event.timestamp)} (UTC)` });
      break;
    case 'monitor.up':
      rows.push({ label: 'State', value: 'UP' });
      if (event.startedAt !== null) rows.push({ label: 'Down since', value: `${isoUtc(event.startedAt)} (UTC)` });
      rows.push({ label: 'Recovered', value: `${isoUtc(event.timestamp)} (UTC)` });
      if (event.durationSeconds !== null) rows.push({ label: 'Outage', value: humanDuration(event.durationSeconds) });
      break;
    case 'certificate.expiring':
      rows.push({ label: 'State', value: event.status === 'down' ? 'DOWN' : 'UP' });
      rows.push({ label: 'Certificate', value: certificateText(event) });
      if (event.certificateExpiresAt !== null) {
        rows.push({ label: 'Not after', value: `${isoUtc(event.certificateExpiresAt)} (UTC)` });
      }
      break;
  }
  if (event.regions.length) {
    rows.push({
      label: 'Regions',
      value: event.regions.map((r) => `${r.region}: ${r.status.toUpperCase()}${r.error ? ` (${value(r.error)})` : ''}`),
    });
  }
  return rows;
}

/** "TLS certificate expires in 14 days", "TLS certificate has expired". */
function certificateText(event: NotificationEvent): string {
  if (event.certificateExpiresAt === null) return 'TLS certificate expires soon';
  const seconds = event.certificateExpiresAt - event.timestamp;
  if (seconds <= 0) return 'TLS certificate has expired';
  const days = Math.ceil(seconds / 86_400);
  return `TLS certificate expires in ${days} ${days === 1 ? 'day' : 'days'}`;
}

// ---- classification --------------------------------------------------------------------

/** The reply code at the start of an SMTP response. */
function replyStatus(response: unknown): number | null {
  if (typeof response !== 'string') return null;
  const m = /^([245]\d\d)(?:[ -]|$)/.exec(response);
  return m ? Number(m[1]) : null;
}

/** "SMTP 550 5.1.1": the reply and enhanced status codes, never the server's text. */
function replyLabel(status: number | null, response: unknown): string {
  if (status === null) return '';
  const enhanced = typeof response === 'string' ? /^\d{3}[ -]([245]\.\d{1,3}\.\d{1,3})\b/.exec(response) : null;
  return ` (SMTP ${status}${enhanced ? ` ${enhanced[1]}` : ''})`;
}

const NETWORK_REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'DNS lookup failed',
  ETIMEDOUT: 'no answer in time',
};

/** Node's codes for a relay certificate that does not verify. */
const TLS_VERIFY_CODE = /^(CERT_|ERR_TLS_|ERR_SSL_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH)/;

/**
 * One class per failed attempt (docs/decisions/0011-notification-channels.md §2, §6). The detail
 * names the step and the SMTP codes only: never the relay's text, the URL or its credentials.
 */
export function smtpOutcome(error: unknown): DeliveryOutcome {
  const e = (typeof error === 'object' && error !== null ? error : {}) as NodemailerError & { name?: string };
  const code = typeof e.code === 'string' ? e.code : e.name === 'AbortError' ? 'EABORT' : '';
  const status = typeof e.responseCode === 'number' ? e.responseCode : null;
  const label = replyLabel(status, e.response);
  const transient = status !== null && status >= 400 && status < 500;
  const permanent = status !== null && status >= 500;
  const out = (cls: DeliveryClass, detail: string): DeliveryOutcome => ({ class: cls, status, detail });
  const original = typeof e.originalCode === 'string' && /^[A-Z0-9_]+$/.test(e.originalCode) ? e.originalCode : '';

  // A certificate Picket does not trust (or made out to another name) surfaces as a socket error.
  if (TLS_VERIFY_CODE.test(original)) return out('config', `TLS with the SMTP relay failed (${original})`);

  switch (code) {
    case 'EAUTH':
    case 'ENOAUTH':
    case 'EOAUTH2':
      return out('config', `the SMTP relay refused Picket's login${label}: check SMTP_URL`);
    case 'ETLS':
      return out('config', `TLS with the SMTP relay failed${original ? ` (${original})` : label}`);
    case 'EREQUIRETLS':
      return out('config', `the SMTP relay does not offer the TLS Picket requires${label}`);
    case 'ECONFIG':
    case 'ERR_ACCESS_DENIED':
      return out('config', `the SMTP configuration was refused (${code})`);
    case 'EENVELOPE':
      switch (e.command) {
        case 'RCPT TO':
          if (permanent) return out('disable', `the SMTP relay refused the address${label}`);
          return out('retry', `the SMTP relay deferred the address${label}`);
        case 'MAIL FROM':
          if (permanent) return out('config', `the SMTP relay refused the sender address (SMTP_FROM)${label}`);
          return out('retry', `the SMTP relay deferred the sender${label}`);
        case 'DATA':
          if (permanent) return out('bug', `the SMTP relay refused the message${label}`);
          return out('retry', `the SMTP relay deferred the message${label}`);
        default:
          if (/sender/i.test(e.message ?? '')) return out('config', 'the sender address (SMTP_FROM) is not valid');
          return out('bug', 'the envelope was refused before sending');
      }
    case 'EMESSAGE':
      if (transient) return out('retry', `the SMTP relay deferred the message${label}`);
      return out('bug', `the SMTP relay refused the message${label}`);
    case 'EABORT':
      return out('retry', 'attempt cancelled');
    case 'ESOCKET':
    case 'ECONNECTION':
    case 'ETIMEDOUT':
    case 'EDNS':
    case 'EPROTOCOL':
    case 'EPROXY':
    case 'EMAXLIMIT': {
      const reason = NETWORK_REASONS[original] ?? (code === 'ETIMEDOUT' ? 'no answer in time' : '');
      return out('retry', `cannot reach the SMTP relay${reason ? ` (${reason})` : ` (${code})`}${label}`);
    }
    case 'EMAXRECIPIENTS':
    case 'ESTREAM':
    case 'EOTP':
    case 'EFILEACCESS':
    case 'EURLACCESS':
      return out('bug', `the message could not be built (${code})`);
    default:
      if (permanent) return out('bug', `the SMTP relay refused the message${label}`);
      return out('retry', `SMTP delivery failed${code && /^[A-Z0-9_]+$/.test(code) ? ` (${code})` : ''}${label}`);
  }
}
