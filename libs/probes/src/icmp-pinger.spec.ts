import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  ICMP_CAPABILITY_HINT,
  icmpChecksum,
  IcmpPinger,
  type PingResult,
  type RawSocket,
  type RawSocketModule,
} from './icmp-pinger.js';
import { ProbeDeadline } from './prober.js';
import { echoReplyTo, FakeRawSocketModule, type SentDatagram, unreachableFor } from './raw-socket.fake.js';

const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));

/** The real addon, recording every datagram handed to it and every socket created. */
function recordingRawSocket(): { module: RawSocketModule; sent: SentDatagram[]; sockets: RawSocket[] } {
  const real = require('raw-socket') as RawSocketModule;
  const sent: SentDatagram[] = [];
  const sockets: RawSocket[] = [];
  const module: RawSocketModule = {
    AddressFamily: real.AddressFamily,
    Protocol: real.Protocol,
    createSocket(options) {
      const socket = real.createSocket(options);
      const family = options.addressFamily === real.AddressFamily.IPv6 ? 6 : 4;
      const send = socket.send.bind(socket);
      socket.send = (buffer, offset, length, address, beforeSend, afterSend) => {
        sent.push({ family, address, icmp: Buffer.from(buffer.subarray(offset, offset + length)) });
        return send(buffer, offset, length, address, beforeSend, afterSend);
      };
      // The pinger sends through the native handle at once when it can (IcmpPinger.sendAtOnce).
      const native = socket.wrap;
      if (native) {
        const sendNow = native.send.bind(native);
        native.send = (buffer, offset, length, address, afterSend) => {
          const result = sendNow(buffer, offset, length, address, afterSend);
          sent.push({ family, address, icmp: Buffer.from(buffer.subarray(offset, offset + length)) });
          return result;
        };
      }
      sockets.push(socket);
      return socket;
    },
  };
  return { module, sent, sockets };
}

/** A safety net so a lost reply fails the test with a result instead of hanging it. */
const patience = () => AbortSignal.timeout(10_000);

async function turns(count = 3): Promise<void> {
  for (let i = 0; i < count; i++) await new Promise((resolve) => setImmediate(resolve));
}

async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}

/** A promise's result once settled, or undefined while pending. */
function track(promise: Promise<PingResult>): { result: PingResult | undefined } {
  const box: { result: PingResult | undefined } = { result: undefined };
  void promise.then((result) => (box.result = result));
  return box;
}

const sequenceOf = (sent: SentDatagram) => sent.icmp.readUInt16BE(6);
const identifierOf = (sent: SentDatagram) => sent.icmp.readUInt16BE(4);

describe('icmpChecksum', () => {
  it('computes the Internet checksum of an echo request', () => {
    // An echo request whose correct checksum is 0x4352 (from the raw-socket README).
    const packet = Buffer.from(
      '0800000000010a096162636465666768696a6b6c6d6e6f7071727374757677616263646566676869',
      'hex',
    );
    expect(icmpChecksum(packet)).toBe(0x4352);
    packet.writeUInt16BE(0x4352, 2);
    expect(icmpChecksum(packet)).toBe(0);
    expect(icmpChecksum(Buffer.from([0x08, 0x00, 0x00, 0x00, 0x01]))).toBe(~(0x0800 + 0x0100) & 0xffff);
  });
});

describe('IcmpPinger on real raw sockets (loopback)', () => {
  let recording: ReturnType<typeof recordingRawSocket>;
  let pinger: IcmpPinger;

  beforeAll(async () => {
    recording = recordingRawSocket();
    pinger = await IcmpPinger.open({ rawSocket: recording.module });
  });

  afterAll(() => pinger.close());

  it('opens one socket per family', () => {
    expect(pinger.available).toBe(true);
    expect(pinger.unavailableReason).toBeNull();
    expect(pinger.ipv6Available).toBe(true);
    expect(pinger.ipv6UnavailableReason).toBeNull();
    expect(recording.sockets).toHaveLength(2);
  });

  it('answers an echo from 127.0.0.1 with a round-trip time', async () => {
    const result = await pinger.ping('127.0.0.1', 4, patience());
    expect(result).toEqual({ rttMs: expect.any(Number) });
    if (!('rttMs' in result)) throw new Error('no reply');
    expect(result.rttMs).toBeGreaterThanOrEqual(0);
    const request = recording.sent.at(-1);
    expect(request).toMatchObject({ family: 4, address: '127.0.0.1' });
    if (request === undefined) throw new Error('nothing sent');
    expect(request.icmp.readUInt8(0)).toBe(8); // echo request
    expect(identifierOf(request)).toBe(pinger.identifier);
    expect(icmpChecksum(request.icmp)).toBe(0); // a valid checksum sums to zero
  });

  it('answers an echo from ::1 with a round-trip time', async () => {
    const result = await pinger.ping('::1', 6, patience());
    expect(result).toEqual({ rttMs: expect.any(Number) });
    const request = recording.sent.at(-1);
    expect(request).toMatchObject({ family: 6, address: '::1' });
    expect(request?.icmp.readUInt8(0)).toBe(128); // ICMPv6 echo request
  });

  it('answers 500 concurrent pings, each sent with its own sequence number', async () => {
    const before = recording.sent.length;
    // Spread over 127.0.0.1–127.0.0.250: each reply must come from the address pinged.
    const addresses = Array.from({ length: 500 }, (_, i) => `127.0.0.${1 + (i % 250)}`);
    const results = await Promise.all(addresses.map((address) => pinger.ping(address, 4, patience())));
    expect(results.filter((result) => !('rttMs' in result))).toEqual([]);
    const sent = recording.sent.slice(before);
    expect(sent).toHaveLength(500);
    expect(new Set(sent.map(sequenceOf)).size).toBe(500);
    expect(sent.every((request) => identifierOf(request) === pinger.identifier)).toBe(true);
    expect(sent.map((request) => request.address).sort()).toEqual([...addresses].sort());
    expect(pinger.inFlight).toBe(0);
    // Both sockets are shared: no socket was opened for these pings.
    expect(recording.sockets).toHaveLength(2);
  });

  it('stops receiving when no ping is in flight', async () => {
    await pinger.ping('127.0.0.1', 4, patience());
    await pinger.ping('::1', 6, patience());
    expect(recording.sockets.map((socket) => socket.recvPaused)).toEqual([true, true]);
  });

  it('close() settles pending pings as aborted', async () => {
    const own = new IcmpPinger({ rawSocket: recordingRawSocket().module });
    // The requests are queued for the socket's next writable turn; close before that.
    const pending = [own.ping('127.0.0.1', 4, patience()), own.ping('::1', 6, patience())];
    own.close();
    expect(await Promise.all(pending)).toEqual([{ error: 'aborted' }, { error: 'aborted' }]);
    expect(await own.ping('127.0.0.1', 4, patience())).toEqual({ error: 'the ICMP pinger is closed', local: true });
    expect(own.available).toBe(false);
  });
});

describe('IcmpPinger in a separate process', () => {
  // The pinger transpiled to plain ESM, so a child process (as another user) can run it.
  let directory: string;
  const root = resolve(here, '../../..');

  beforeAll(() => {
    const swc = require('@swc/core') as {
      transformFileSync(path: string, options: object): { code: string };
    };
    directory = mkdtempSync(join(tmpdir(), 'picket-pinger-'));
    chmodSync(directory, 0o755);
    writeFileSync(join(directory, 'package.json'), '{"type":"module"}');
    for (const name of ['icmp-pinger', 'prober']) {
      const { code } = swc.transformFileSync(join(here, `${name}.ts`), {
        jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
        module: { type: 'es6' },
        swcrc: false,
      });
      writeFileSync(join(directory, `${name}.js`), code);
    }
  });

  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  function runChild(options: { uid?: number; gid?: number } = {}) {
    const script = `
      import { IcmpPinger } from ${JSON.stringify(pathToFileURL(join(directory, 'icmp-pinger.js')).href)};
      const pinger = await IcmpPinger.open();
      const v4 = await pinger.ping('127.0.0.1', 4, AbortSignal.timeout(5000));
      const v6 = await pinger.ping('::1', 6, AbortSignal.timeout(5000));
      console.log(JSON.stringify({
        available: pinger.available, reason: pinger.unavailableReason,
        ipv6Available: pinger.ipv6Available, ipv6Reason: pinger.ipv6UnavailableReason, v4, v6,
      }));
      // No close(): an idle pinger must let the process exit by itself.
    `;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      ...options,
      env: { ...process.env, NODE_PATH: join(root, 'node_modules') },
      encoding: 'utf8',
      timeout: 20_000,
    });
    return { ...child, report: child.status === 0 ? (JSON.parse(child.stdout) as Record<string, unknown>) : null };
  }

  it('pings and then lets the process exit: idle sockets do not keep it alive', () => {
    const child = runChild();
    expect({ status: child.status, signal: child.signal, stderr: child.stderr }).toEqual({
      status: 0,
      signal: null,
      stderr: '',
    });
    expect(child.report).toMatchObject({
      available: true,
      v4: { rttMs: expect.any(Number) },
      v6: { rttMs: expect.any(Number) },
    });
  });

  it('without CAP_NET_RAW (an unprivileged user) it is unavailable with a clear reason and never throws', () => {
    const child = runChild({ uid: 65534, gid: 65534 });
    expect({ status: child.status, signal: child.signal, stderr: child.stderr }).toEqual({
      status: 0,
      signal: null,
      stderr: '',
    });
    expect(child.report).toEqual({
      available: false,
      reason: ICMP_CAPABILITY_HINT,
      ipv6Available: false,
      ipv6Reason: ICMP_CAPABILITY_HINT,
      v4: { error: ICMP_CAPABILITY_HINT, local: true },
      v6: { error: ICMP_CAPABILITY_HINT, local: true },
    });
  });
});

describe('IcmpPinger matching (stand-in socket)', () => {
  it('settles a request only with its own reply: identifier, sequence, source and payload', async () => {
    const fake = new FakeRawSocketModule();
    const pinger = new IcmpPinger({ rawSocket: fake });
    const a = track(pinger.ping('127.0.0.2', 4, patience()));
    const b = track(pinger.ping('127.0.0.3', 4, patience()));
    await waitFor(() => fake.sent.length === 2);
    const [sentA, sentB] = fake.sent;
    if (sentA === undefined || sentB === undefined) throw new Error('not sent');
    expect(sequenceOf(sentA)).not.toBe(sequenceOf(sentB));
    const socket = fake.socket(4);

    socket.deliver(echoReplyTo(sentB, { identifier: pinger.identifier ^ 1 }), '127.0.0.3'); // another pinger's
    socket.deliver(echoReplyTo(sentB), '127.0.0.2'); // right numbers, wrong source
    socket.deliver(echoReplyTo(sentB, { payload: Buffer.alloc(16, 7) }), '127.0.0.3'); // not our payload
    await turns();
    expect([a.result, b.result]).toEqual([undefined, undefined]);

    socket.deliver(echoReplyTo(sentB), '127.0.0.3'); // B's reply arrives first
    await turns();
    expect(b.result).toEqual({ rttMs: expect.any(Number) });
    expect(a.result).toBeUndefined();

    socket.deliver(echoReplyTo(sentB), '127.0.0.3'); // a duplicate changes nothing
    socket.deliver(echoReplyTo(sentA), '127.0.0.2');
    await turns();
    expect(a.result).toEqual({ rttMs: expect.any(Number) });
    expect(pinger.inFlight).toBe(0);
    pinger.close();
  });

  it("with the addon's native send, the pings started in one tick leave in it; a full send buffer queues them", async () => {
    const fake = new FakeRawSocketModule();
    fake.native = true;
    const pinger = new IcmpPinger({ rawSocket: fake });
    const first = [1, 2, 3, 4].map((n) => track(pinger.ping(`127.0.0.${n}`, 4, patience())));
    // No turn of the event loop yet: all four are out.
    expect(fake.sent.map((sent) => sent.address)).toEqual(['127.0.0.1', '127.0.0.2', '127.0.0.3', '127.0.0.4']);
    const socket = fake.socket(4);
    for (const sent of fake.sent) socket.deliver(echoReplyTo(sent), sent.address);
    await turns();
    expect(first.map((box) => box.result)).toEqual(Array(4).fill({ rttMs: expect.any(Number) }));

    fake.sendBufferFull = true;
    const queued = track(pinger.ping('127.0.0.5', 4, patience()));
    expect(fake.sent).toHaveLength(4);
    await waitFor(() => fake.sent.length === 5); // through the addon's queue, a turn later
    expect(socket.sentAtOnce).toBe(4);
    socket.deliver(echoReplyTo(fake.sent[4]!), '127.0.0.5');
    await turns();
    expect(queued.result).toEqual({ rttMs: expect.any(Number) });
    expect(pinger.inFlight).toBe(0);
    pinger.close();
  });

  it('keeps IPv4 and IPv6 requests apart and matches IPv6 sources in any notation', async () => {
    const fake = new FakeRawSocketModule();
    const pinger = new IcmpPinger({ rawSocket: fake });
    const v6 = track(pinger.ping('0:0:0:0:0:0:0:1', 6, patience()));
    await waitFor(() => fake.sent.length === 1);
    const [sent] = fake.sent;
    if (sent === undefined) throw new Error('not sent');
    fake.socket(6).deliver(echoReplyTo(sent), '::1');
    await turns();
    expect(v6.result).toEqual({ rttMs: expect.any(Number) });
    pinger.close();
  });

  it('answers unreachable for an ICMP destination-unreachable quoting the request (IPv4 type 3, ICMPv6 type 1)', async () => {
    const fake = new FakeRawSocketModule();
    const pinger = new IcmpPinger({ rawSocket: fake });
    const v4 = track(pinger.ping('127.0.0.5', 4, patience()));
    const v6 = track(pinger.ping('::1', 6, patience()));
    await waitFor(() => fake.sent.length === 2);
    const sent4 = fake.sent.find((sent) => sent.family === 4);
    const sent6 = fake.sent.find((sent) => sent.family === 6);
    if (sent4 === undefined || sent6 === undefined) throw new Error('not sent');

    // An error quoting a packet to another destination is not about this request.
    fake.socket(4).deliver(unreachableFor(sent4, '127.0.0.6'), '127.0.0.9');
    fake.socket(6).deliver(unreachableFor(sent6, 'fd00::5'), 'fd00::9');
    await turns();
    expect([v4.result, v6.result]).toEqual([undefined, undefined]);

    fake.socket(4).deliver(unreachableFor(sent4), '127.0.0.9');
    fake.socket(6).deliver(unreachableFor(sent6), 'fd00::9');
    await turns();
    expect([v4.result, v6.result]).toEqual([{ error: 'unreachable' }, { error: 'unreachable' }]);
    pinger.close();
  });

  it('wraps sequence numbers at 16 bits and never reuses one still in flight', async () => {
    const fake = new FakeRawSocketModule();
    const pinger = new IcmpPinger({ rawSocket: fake });
    // Held in flight for the whole test, with no deadline of its own: the 65,546 pings below took
    // over patience()'s 10 s on a loaded CI machine, and the held one timed out.
    const held = track(pinger.ping('127.0.0.1', 4, new AbortController().signal));
    await waitFor(() => fake.sent.length === 1);
    const heldSequence = sequenceOf(fake.sent[0] as SentDatagram);

    fake.onSend = (sent, socket) => socket.deliver(echoReplyTo(sent), sent.address);
    const total = 0x10000 + 10;
    for (let done = 0; done < total; done += 4096) {
      const batch = Math.min(4096, total - done);
      const results = await Promise.all(
        Array.from({ length: batch }, () => pinger.ping('127.0.0.1', 4, new AbortController().signal)),
      );
      expect(results.every((result) => 'rttMs' in result)).toBe(true);
    }
    const answered = fake.sent.slice(1).map(sequenceOf);
    expect(answered).toHaveLength(total);
    expect(answered).not.toContain(heldSequence);
    // Every other number was used, then the counter wrapped and went on.
    expect(new Set(answered).size).toBe(0xffff);
    expect(held.result).toBeUndefined();
    pinger.close();
    await turns();
    expect(held.result).toEqual({ error: 'aborted' });
  });

  it('answers aborted when the signal aborts, timeout at a deadline, and sends nothing when already aborted', async () => {
    const fake = new FakeRawSocketModule();
    const pinger = new IcmpPinger({ rawSocket: fake });

    const stop = new AbortController();
    const stopped = pinger.ping('127.0.0.1', 4, stop.signal);
    const deadline = new AbortController();
    const late = pinger.ping('127.0.0.1', 4, deadline.signal);
    await waitFor(() => fake.sent.length === 2);
    stop.abort(new Error('agent stopping'));
    deadline.abort(new ProbeDeadline(1000));
    expect(await stopped).toEqual({ error: 'aborted' });
    expect(await late).toEqual({ error: 'timeout' });
    expect(await pinger.ping('127.0.0.1', 4, AbortSignal.timeout(1))).toEqual({ error: 'timeout' });
    await turns();
    expect(pinger.inFlight).toBe(0);

    const before = fake.sent.length;
    expect(await pinger.ping('127.0.0.1', 4, stop.signal)).toEqual({ error: 'aborted' });
    await turns();
    expect(fake.sent).toHaveLength(before);
    pinger.close();
  });

  it('keeps the sequence number of a request aborted before it was sent until it is sent', async () => {
    const fake = new FakeRawSocketModule();
    const pinger = new IcmpPinger({ rawSocket: fake });
    const stop = new AbortController();
    const abandoned = pinger.ping('127.0.0.1', 4, stop.signal);
    stop.abort(new Error('agent stopping')); // while its request is still queued in the socket
    expect(await abandoned).toEqual({ error: 'aborted' });
    // It still holds its number: once every other one is taken, none is left.
    const others = Array.from({ length: 0xffff }, () => pinger.ping('127.0.0.1', 4, new AbortController().signal));
    expect(await pinger.ping('127.0.0.1', 4, new AbortController().signal)).toEqual({
      error: 'too many pings in flight',
      local: true,
    });
    fake.onSend = (sent, socket) => socket.deliver(echoReplyTo(sent), sent.address);
    const results = await Promise.all(others);
    expect(results.every((result) => 'rttMs' in result)).toBe(true);
    expect(new Set(fake.sent.map(sequenceOf)).size).toBe(0x10000);
    expect(pinger.inFlight).toBe(0);
    pinger.close();
  });

  it('close() settles pending pings as aborted and closes both sockets', async () => {
    const fake = new FakeRawSocketModule();
    const pinger = await IcmpPinger.open({ rawSocket: fake });
    const pending = [pinger.ping('127.0.0.1', 4, patience()), pinger.ping('::1', 6, patience())];
    await waitFor(() => fake.sent.length === 2);
    pinger.close();
    expect(await Promise.all(pending)).toEqual([{ error: 'aborted' }, { error: 'aborted' }]);
    expect(fake.sockets.map((socket) => socket.closed)).toEqual([true, true]);
    expect(pinger.unavailableReason).toBe('the ICMP pinger is closed');
  });

  it('fails the pings of a socket that breaks, and opens a new socket for the next ping', async () => {
    const fake = new FakeRawSocketModule();
    const pinger = new IcmpPinger({ rawSocket: fake });
    const pending = pinger.ping('127.0.0.1', 4, patience());
    await waitFor(() => fake.sent.length === 1);
    const broken = fake.socket(4);
    broken.emit('error', new Error('Bad file descriptor'));
    broken.close(); // as the addon does after an I/O error
    expect(await pending).toEqual({ error: 'the ICMP socket failed: Bad file descriptor', local: true });

    fake.onSend = (sent, socket) => socket.deliver(echoReplyTo(sent), sent.address);
    expect(await pinger.ping('127.0.0.1', 4, patience())).toEqual({ rttMs: expect.any(Number) });
    expect(fake.sockets).toHaveLength(2);
    pinger.close();
  });

  it('does not keep receiving while idle', async () => {
    const fake = new FakeRawSocketModule();
    const pinger = await IcmpPinger.open({ rawSocket: fake });
    expect(fake.sockets.map((socket) => socket.recvPaused)).toEqual([true, true]);
    fake.onSend = (sent, socket) => socket.deliver(echoReplyTo(sent), sent.address);
    const pending = pinger.ping('127.0.0.1', 4, patience());
    expect(fake.socket(4).recvPaused).toBe(false);
    await pending;
    expect(fake.socket(4).recvPaused).toBe(true);
    pinger.close();
  });
});

describe('IcmpPinger capability', () => {
  it('is unavailable with the CAP_NET_RAW hint when raw sockets are not permitted; open() does not throw', async () => {
    const fake = new FakeRawSocketModule();
    fake.failures = { 4: 'Operation not permitted', 6: 'Operation not permitted' };
    const pinger = await IcmpPinger.open({ rawSocket: fake });
    expect(pinger.available).toBe(false);
    expect(pinger.unavailableReason).toBe(ICMP_CAPABILITY_HINT);
    expect(pinger.ipv6Available).toBe(false);
    expect(await pinger.ping('127.0.0.1', 4, patience())).toEqual({ error: ICMP_CAPABILITY_HINT, local: true });
  });

  it('reports IPv6 separately when only the IPv6 socket cannot be created', async () => {
    const fake = new FakeRawSocketModule();
    fake.failures = { 6: 'Address family not supported by protocol' };
    fake.onSend = (sent, socket) => socket.deliver(echoReplyTo(sent), sent.address);
    const pinger = await IcmpPinger.open({ rawSocket: fake });
    expect(pinger.available).toBe(true);
    expect(pinger.ipv6Available).toBe(false);
    expect(pinger.ipv6UnavailableReason).toBe(
      'ICMPv6 is unavailable: this host does not support IPv6 (Address family not supported by protocol)',
    );
    expect(await pinger.ping('127.0.0.1', 4, patience())).toEqual({ rttMs: expect.any(Number) });
    expect(await pinger.ping('::1', 6, patience())).toMatchObject({ local: true });
    pinger.close();
  });

  it('IcmpPinger.unavailable(reason) is a pinger that cannot ping, for either family', async () => {
    const pinger = IcmpPinger.unavailable('ICMP disabled by configuration');
    expect([pinger.available, pinger.ipv6Available]).toEqual([false, false]);
    expect(pinger.unavailableReason).toBe('ICMP disabled by configuration');
    expect(await pinger.ping('::1', 6, patience())).toEqual({ error: 'ICMP disabled by configuration', local: true });
  });

  it('refuses an address of the wrong family without sending', async () => {
    const fake = new FakeRawSocketModule();
    const pinger = new IcmpPinger({ rawSocket: fake });
    expect(await pinger.ping('::1', 4, patience())).toEqual({ error: 'not an IPv4 address: ::1', local: true });
    await turns();
    expect(fake.sent).toEqual([]);
    pinger.close();
  });
});
