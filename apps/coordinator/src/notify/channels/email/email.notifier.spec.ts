import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { sampleEvent, testContext, testDeps } from '../../../../../../test/support/notify-kit.js';
import { testPki } from '../../../../../../test/support/tls.js';
import type { NotificationEvent } from '../../notification-event.js';
import type { NotifierDeps } from '../../notifier-deps.js';
import type { DeliveryOutcome } from '../../notifier.js';
import { eventOf, PICKET_USER_AGENT } from '../notifier-test-kit.js';
import {
  createEmailNotifier,
  emailSubject,
  smtpOutcome,
  transportOptions,
  type EmailNotifier,
} from './email.notifier.js';

// ---- a fake relay ------------------------------------------------------------------------

const USER = 'picket-relay';
/** Characters that must survive percent-encoding in SMTP_URL, and must never show up in a detail. */
const PASS = 'S3cr:t/p@ss%w0rd';
const GONE = 'gone@example.com';
const LATER = 'later@example.com';
const DATA_REFUSED = 'refused-data@example.com';

interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
  secure: boolean;
  user: unknown;
}

class FakeRelay {
  readonly mails: ReceivedMail[] = [];
  port = 0;
  private server?: SMTPServer;

  async start(options: Partial<SMTPServerOptions> = {}): Promise<this> {
    const pki = await testPki();
    const smtpError = (message: string, responseCode: number) => Object.assign(new Error(message), { responseCode });
    this.server = new SMTPServer({
      key: pki.server.key,
      cert: pki.server.cert,
      authMethods: ['PLAIN'],
      logger: false,
      onAuth: (auth, _session, callback) => {
        if (auth.method === 'PLAIN' && auth.username === USER && auth.password === PASS) callback(null, { user: USER });
        else callback(smtpError('5.7.8 Authentication credentials invalid', 535));
      },
      onRcptTo: (address, _session, callback) => {
        if (address.address === GONE) callback(smtpError('5.1.1 No such user here', 550));
        else if (address.address === LATER) callback(smtpError('4.7.1 Greylisted, try again later', 451));
        else callback();
      },
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          const to = session.envelope.rcptTo.map((a) => a.address);
          if (to.includes(DATA_REFUSED)) {
            callback(smtpError('5.6.0 Message content rejected', 554));
            return;
          }
          const from = session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address;
          this.mails.push({
            from,
            to,
            raw: Buffer.concat(chunks).toString('utf8'),
            secure: session.secure,
            user: session.user,
          });
          callback(null, '2.0.0 Queued');
        });
      },
      ...options,
    });
    const server = this.server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    this.port = (server.server.address() as AddressInfo).port;
    return this;
  }

  url(scheme: 'smtp' | 'smtps' = 'smtp', pass = PASS): string {
    return `${scheme}://${encodeURIComponent(USER)}:${encodeURIComponent(pass)}@127.0.0.1:${this.port}`;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

// ---- raw MIME helpers --------------------------------------------------------------------

/** Header lines of a raw message (or part), unfolded, in order. */
function headerLines(raw: string): string[] {
  const end = raw.indexOf('\r\n\r\n');
  return raw
    .slice(0, end)
    .replace(/\r\n[ \t]+/g, ' ')
    .split('\r\n');
}

function header(raw: string, name: string): string | undefined {
  const prefix = `${name.toLowerCase()}:`;
  const line = headerLines(raw).find((l) => l.toLowerCase().startsWith(prefix));
  return line?.slice(prefix.length).trim();
}

function decodeBody(part: string): string {
  const body = part.slice(part.indexOf('\r\n\r\n') + 4);
  const encoding = (header(part, 'Content-Transfer-Encoding') ?? '7bit').toLowerCase();
  if (encoding === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (encoding === 'quoted-printable') {
    const bytes = body
      .replace(/=\r\n/g, '')
      .replace(/=([0-9A-F]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    return Buffer.from(bytes, 'latin1').toString('utf8');
  }
  return body;
}

/** The parts of a multipart/alternative message: content type → decoded body. */
function alternativeParts(raw: string): Map<string, string> {
  const contentType = header(raw, 'Content-Type') ?? '';
  const boundary = /boundary="?([^";]+)"?/.exec(contentType)?.[1];
  if (!boundary) throw new Error(`not multipart: ${contentType}`);
  const parts = new Map<string, string>();
  for (const piece of raw.split(`--${boundary}`).slice(1)) {
    if (piece.startsWith('--')) break;
    const part = piece.replace(/^\r\n/, '');
    const type = (header(part, 'Content-Type') ?? '').split(';')[0]!.trim();
    parts.set(type, decodeBody(part));
  }
  return parts;
}

// ---- events ------------------------------------------------------------------------------

const DOWN_ID = '<inc-6650a1f0c2e4b0a1b2c3d4e6-down@picket.example.com>';

/** The UP of the outage whose DOWN mail was DOWN_ID. */
const upEvent = (overrides: Partial<NotificationEvent> = {}) =>
  eventOf('monitor.up', { openRef: DOWN_ID, ...overrides });
const certEvent = () => eventOf('certificate.expiring');
const testEvent = () => eventOf('contact.test', { id: '6650a1f0c2e4b0a1b2c3d4ff', link: null });

// ---- tests -------------------------------------------------------------------------------

describe('email notifier', () => {
  const relay = new FakeRelay();
  const notifiers: EmailNotifier[] = [];
  const details: string[] = [];

  async function notifier(smtp: Partial<NotifierDeps['smtp']> = {}): Promise<EmailNotifier> {
    const base = await testDeps();
    const created = createEmailNotifier({ ...base, smtp: { ...base.smtp, url: relay.url(), ...smtp } });
    notifiers.push(created);
    return created;
  }

  async function send(
    n: EmailNotifier,
    to: string,
    event: NotificationEvent = sampleEvent(),
  ): Promise<DeliveryOutcome> {
    const outcome = await n.deliver({ email: to }, event, testContext());
    details.push(outcome.detail);
    return outcome;
  }

  beforeAll(async () => {
    await relay.start();
  });
  const closeNotifiers = async () => {
    await Promise.all(notifiers.splice(0).map((n) => n.close()));
  };
  afterEach(closeNotifiers);
  afterAll(async () => {
    await relay.stop();
    // Whatever happened above, no detail ever carried the relay password.
    expect(details.length).toBeGreaterThan(0);
    for (const detail of details) {
      expect(detail).not.toContain(PASS);
      expect(detail).not.toContain(encodeURIComponent(PASS));
      expect(detail).not.toContain('wrong-password');
    }
  });

  it('sends a DOWN mail over STARTTLS with AUTH PLAIN and returns its Message-ID as ref', async () => {
    const n = await notifier();
    const outcome = await send(n, 'ops@example.com');
    expect(outcome).toEqual({ class: 'ok', status: 250, detail: 'accepted by the SMTP relay', ref: DOWN_ID });

    const mail = relay.mails.at(-1)!;
    expect(mail.secure).toBe(true);
    expect(mail.user).toBe(USER);
    expect(mail.from).toBe('picket@example.com');
    expect(mail.to).toEqual(['ops@example.com']);
    const lines = headerLines(mail.raw);
    expect(lines).toContain('Subject: [DOWN] API (prod): HTTP 503');
    expect(lines).toContain(`Message-ID: ${DOWN_ID}`);
    expect(lines).toContain('Auto-Submitted: auto-generated');
    expect(lines).toContain('X-Auto-Response-Suppress: OOF, AutoReply');
    expect(lines).toContain(`X-Mailer: ${PICKET_USER_AGENT}`);
    expect(lines).toContain('From: Picket <picket@example.com>');
    expect(lines).toContain('To: ops@example.com');
    expect(header(mail.raw, 'In-Reply-To')).toBeUndefined();
    expect(header(mail.raw, 'References')).toBeUndefined();
    expect(header(mail.raw, 'Content-Type')).toMatch(/^multipart\/alternative; boundary=/);

    const parts = alternativeParts(mail.raw);
    expect([...parts.keys()]).toEqual(['text/plain', 'text/html']);
    const text = parts.get('text/plain')!;
    expect(text).toContain('API (prod) is DOWN');
    expect(text).toContain('Target: https://api.example.com/health');
    expect(text).toContain('State: DOWN');
    expect(text).toContain('Cause: HTTP 503');
    expect(text).toContain('Down since: 2026-01-01T10:00:00Z (UTC)');
    expect(text).toContain('  - eu-west-1: DOWN (HTTP 503)');
    expect(text).toContain('  - us-east-1: DOWN (HTTP 503)');
    expect(text).toContain('Open the monitor: https://picket.example.com/monitors/6650a1f0c2e4b0a1b2c3d4e5');
    const html = parts.get('text/html')!;
    expect(html).toContain('<li>eu-west-1: DOWN (HTTP 503)</li>');
    expect(html).toContain('<a href="https://picket.example.com/monitors/6650a1f0c2e4b0a1b2c3d4e5">');
  });

  it('threads the UP mail under the DOWN mail and states the outage length', async () => {
    const n = await notifier();
    const outcome = await send(n, 'ops@example.com', upEvent());
    expect(outcome.class).toBe('ok');
    expect(outcome.ref).toBeUndefined();

    const raw = relay.mails.at(-1)!.raw;
    const lines = headerLines(raw);
    expect(lines).toContain('Subject: [UP] API (prod): down 12 min');
    expect(lines).toContain(`In-Reply-To: ${DOWN_ID}`);
    expect(lines).toContain(`References: ${DOWN_ID}`);
    expect(lines).toContain('Message-ID: <inc-6650a1f0c2e4b0a1b2c3d4e6-up@picket.example.com>');
    expect(lines).toContain('Auto-Submitted: auto-generated');
    const text = alternativeParts(raw).get('text/plain')!;
    expect(text).toContain('State: UP');
    expect(text).toContain('Outage: 12 min');
    expect(text).toContain('Recovered: 2026-01-01T10:12:00Z (UTC)');
  });

  it('sends an UP mail without threading headers when the opening ref is unknown', async () => {
    const n = await notifier();
    expect((await send(n, 'ops@example.com', upEvent({ openRef: null }))).class).toBe('ok');
    const raw = relay.mails.at(-1)!.raw;
    expect(header(raw, 'In-Reply-To')).toBeUndefined();
    expect(header(raw, 'References')).toBeUndefined();
  });

  it('sends certificate and test mails with their own subjects and stable Message-IDs', async () => {
    const n = await notifier();
    expect((await send(n, 'ops@example.com', certEvent())).class).toBe('ok');
    let raw = relay.mails.at(-1)!.raw;
    expect(headerLines(raw)).toContain('Subject: [CERT] API (prod): TLS certificate expires in 14 days');
    expect(headerLines(raw)).toContain('Message-ID: <evt-6650a1f0c2e4b0a1b2c3d4e7@picket.example.com>');
    expect(alternativeParts(raw).get('text/plain')).toContain('Not after: 2026-01-15T10:00:00Z (UTC)');

    expect((await send(n, 'ops@example.com', testEvent())).class).toBe('ok');
    raw = relay.mails.at(-1)!.raw;
    expect(headerLines(raw)).toContain('Subject: [TEST] Test notification from Picket');
    expect(headerLines(raw)).toContain('Message-ID: <evt-6650a1f0c2e4b0a1b2c3d4ff@picket.example.com>');
    expect(alternativeParts(raw).get('text/plain')).toContain('email delivery to this address works');
  });

  it('escapes HTML and keeps the subject on one line for hostile monitor names and causes', async () => {
    const n = await notifier();
    const event = sampleEvent({
      monitor: { ...sampleEvent().monitor, name: '<script>&', target: 'https://x.example/?a=1&b=<2>' },
      error: 'HTTP 503\r\nBcc: victim@example.com',
    });
    expect((await send(n, 'ops@example.com', event)).class).toBe('ok');
    const mail = relay.mails.at(-1)!;
    expect(mail.to).toEqual(['ops@example.com']);
    const lines = headerLines(mail.raw);
    expect(lines).toContain('Subject: [DOWN] <script>&: HTTP 503 Bcc: victim@example.com');
    expect(lines.some((l) => /^bcc:/i.test(l))).toBe(false);

    const parts = alternativeParts(mail.raw);
    const html = parts.get('text/html')!;
    expect(html).toContain('&#60;script&#62;&#38; is DOWN');
    expect(html).toContain('https://x.example/?a=1&#38;b=&#60;2&#62;');
    expect(html).not.toContain('<script>');
    expect(parts.get('text/plain')).toContain('<script>& is DOWN');
  });

  it('uses implicit TLS for smtps:// URLs', async () => {
    const secureRelay = await new FakeRelay().start({ secure: true });
    try {
      const n = await notifier({ url: secureRelay.url('smtps') });
      expect((await send(n, 'ops@example.com')).class).toBe('ok');
      expect(secureRelay.mails).toHaveLength(1);
      expect(secureRelay.mails[0]!.secure).toBe(true);
    } finally {
      await closeNotifiers();
      await secureRelay.stop();
    }
  });

  it('sends several mails through one pooled transporter', async () => {
    const n = await notifier();
    const before = relay.mails.length;
    const outcomes = await Promise.all(
      ['a@example.com', 'b@example.com', 'c@example.com'].map((to) => send(n, to, testEvent())),
    );
    expect(outcomes.map((o) => o.class)).toEqual(['ok', 'ok', 'ok']);
    expect(relay.mails.length - before).toBe(3);
  });

  describe('classification', () => {
    it('550 to RCPT TO disables the address', async () => {
      const outcome = await send(await notifier(), GONE);
      expect(outcome).toMatchObject({ class: 'disable', status: 550 });
      expect(outcome.detail).toBe('the SMTP relay refused the address (SMTP 550 5.1.1)');
    });

    it('451 to RCPT TO is retried', async () => {
      const outcome = await send(await notifier(), LATER);
      expect(outcome).toMatchObject({ class: 'retry', status: 451 });
      expect(outcome.detail).toContain('SMTP 451');
    });

    it('554 after DATA is a bug (the relay refused the message Picket built)', async () => {
      const outcome = await send(await notifier(), DATA_REFUSED);
      expect(outcome).toMatchObject({ class: 'bug', status: 554 });
    });

    it('a refused login is Picket configuration, never the contact', async () => {
      const outcome = await send(await notifier({ url: relay.url('smtp', 'wrong-password') }), 'ops@example.com');
      expect(outcome).toMatchObject({ class: 'config', status: 535 });
      expect(outcome.detail).toContain("refused Picket's login");
    });

    it('an untrusted relay certificate is configuration', async () => {
      const outcome = await send(await notifier({ ca: undefined }), 'ops@example.com');
      expect(outcome).toEqual({
        class: 'config',
        status: null,
        detail: 'TLS with the SMTP relay failed (UNABLE_TO_VERIFY_LEAF_SIGNATURE)',
      });
    });

    it('a relay without STARTTLS is configuration (TLS is required on smtp://)', async () => {
      const plainRelay = await new FakeRelay().start({ disabledCommands: ['STARTTLS'], allowInsecureAuth: true });
      try {
        const outcome = await send(await notifier({ url: plainRelay.url() }), 'ops@example.com');
        expect(outcome.class).toBe('config');
        expect(outcome.detail).toMatch(/^TLS with the SMTP relay failed/);
        expect(plainRelay.mails).toHaveLength(0);
      } finally {
        await closeNotifiers();
        await plainRelay.stop();
      }
    });

    it('a relay that is down is retried', async () => {
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const port = (closed.address() as AddressInfo).port;
      await new Promise<void>((resolve) => closed.close(() => resolve()));
      const url = `smtp://${USER}:${encodeURIComponent(PASS)}@127.0.0.1:${port}`;
      const outcome = await send(await notifier({ url }), 'ops@example.com');
      expect(outcome).toMatchObject({ class: 'retry', status: null });
      expect(outcome.detail).toBe('cannot reach the SMTP relay (connection refused)');
    });

    it('no SMTP_URL is configuration', async () => {
      const outcome = await send(await notifier({ url: null }), 'ops@example.com');
      expect(outcome).toEqual({ class: 'config', status: null, detail: 'no SMTP relay configured (SMTP_URL)' });
    });

    it('an SMTP_URL of another scheme is configuration', async () => {
      const outcome = await send(await notifier({ url: 'http://relay.example.com' }), 'ops@example.com');
      expect(outcome.class).toBe('config');
    });

    it('an aborted attempt is retried', async () => {
      const n = await notifier();
      const controller = new AbortController();
      controller.abort();
      const outcome = await n.deliver({ email: 'ops@example.com' }, sampleEvent(), {
        signal: controller.signal,
        now: () => Date.now(),
      });
      details.push(outcome.detail);
      expect(outcome.class).toBe('retry');
    });

    it.each([
      [{ code: 'EENVELOPE', command: 'RCPT TO', responseCode: 550, response: '550 5.1.1 nope' }, 'disable'],
      [{ code: 'EENVELOPE', command: 'RCPT TO', responseCode: 452, response: '452 4.2.2 full' }, 'retry'],
      [{ code: 'EENVELOPE', command: 'MAIL FROM', responseCode: 553, response: '553 no' }, 'config'],
      [{ code: 'EENVELOPE', command: 'DATA', responseCode: 554, response: '554 no' }, 'bug'],
      [{ code: 'EMESSAGE', command: 'DATA', responseCode: 552, response: '552 too big' }, 'bug'],
      [{ code: 'EMESSAGE', command: 'DATA', responseCode: 451, response: '451 later' }, 'retry'],
      [{ code: 'EMESSAGE', command: 'API' }, 'bug'],
      [{ code: 'EAUTH', command: 'AUTH PLAIN', responseCode: 535, response: '535 5.7.8 bad' }, 'config'],
      [{ code: 'ETLS', command: 'STARTTLS' }, 'config'],
      [{ code: 'EREQUIRETLS', command: 'MAIL FROM' }, 'config'],
      [{ code: 'ECONNECTION', command: 'CONN' }, 'retry'],
      [{ code: 'ETIMEDOUT', command: 'CONN' }, 'retry'],
      [{ code: 'ESOCKET', originalCode: 'ECONNREFUSED', command: 'CONN' }, 'retry'],
      [{ code: 'EDNS', originalCode: 'ENOTFOUND', command: 'CONN' }, 'retry'],
    ] as const)('%j → %s', (error, expected) => {
      const outcome = smtpOutcome(Object.assign(new Error(`failure with ${PASS}`), error));
      details.push(outcome.detail);
      expect(outcome.class).toBe(expected);
    });
  });

  describe('verify()', () => {
    it('reports ok for a working relay and config for a refused login', async () => {
      expect((await (await notifier()).verify()).class).toBe('ok');
      const refused = await (await notifier({ url: relay.url('smtp', 'wrong-password') })).verify();
      details.push(refused.detail);
      expect(refused.class).toBe('config');
    });
  });
});

describe('email building blocks', () => {
  it('reads SMTP_URL: STARTTLS required on smtp://, implicit TLS on smtps://, decoded credentials', () => {
    const starttls = transportOptions(`smtp://u%40x:${encodeURIComponent(PASS)}@relay.example.com`);
    expect(starttls).toMatchObject({
      host: 'relay.example.com',
      port: 587,
      secure: false,
      requireTLS: true,
      auth: { user: 'u@x', pass: PASS },
      pool: true,
      maxConnections: 5,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 30_000,
    });
    expect(transportOptions('smtps://relay.example.com')).toMatchObject({ port: 465, secure: true, requireTLS: false });
    expect(transportOptions('smtps://relay.example.com')).not.toHaveProperty('auth');
    expect(transportOptions(null)).toBe('no SMTP relay configured (SMTP_URL)');
  });

  it('subjects lead with the state and stay on one line', () => {
    expect(emailSubject(sampleEvent())).toBe('[DOWN] API (prod): HTTP 503');
    expect(emailSubject(upEvent())).toBe('[UP] API (prod): down 12 min');
    expect(emailSubject(upEvent({ durationSeconds: null }))).toBe('[UP] API (prod): recovered');
    expect(emailSubject(sampleEvent({ error: null }))).toBe('[DOWN] API (prod): down');
    expect(emailSubject(certEvent())).toBe('[CERT] API (prod): TLS certificate expires in 14 days');
    expect(emailSubject(testEvent())).toBe('[TEST] Test notification from Picket');
    const long = emailSubject(sampleEvent({ monitor: { ...sampleEvent().monitor, name: `a\r\n${'x'.repeat(500)}` } }));
    expect(long).not.toMatch(/[\r\n]/);
    expect(Array.from(long).length).toBe(200);
    expect(long.endsWith('…')).toBe(true);
  });
});
