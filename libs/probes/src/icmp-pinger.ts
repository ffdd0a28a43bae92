import { randomBytes, randomInt } from 'node:crypto';
import { createRequire } from 'node:module';
import { isIP } from 'node:net';
import { ProbeDeadline } from './prober.js';

/** Why ICMP is unavailable when the agent may not open raw sockets. */
export const ICMP_CAPABILITY_HINT =
  'ICMP needs raw sockets: run the agent as root or grant CAP_NET_RAW ' +
  '(systemd AmbientCapabilities=CAP_NET_RAW, or setcap cap_net_raw+ep on the node binary)';

const CLOSED_REASON = 'the ICMP pinger is closed';

/**
 * The answer to one echo request: the round-trip time, or why there is none:
 * - `timeout`: the signal was aborted with a deadline (ProbeDeadline or AbortSignal.timeout);
 * - `aborted`: the signal was aborted otherwise, or the pinger was closed;
 * - `unreachable`: an ICMP destination-unreachable answered the request, or the kernel
 *   had no route to send it;
 * - any other text: a short reason (e.g. "time exceeded in transit"). `local: true` marks
 *   a failure on the agent's side (no socket, the send failed), where nothing was learnt
 *   about the target.
 */
export type PingResult = { rttMs: number } | { error: string; local?: boolean };

/** What the pinger uses of the `raw-socket` addon (CommonJS, untyped): tests may stand in for it. */
export interface RawSocket {
  readonly recvPaused: boolean;
  on(event: 'message', listener: (buffer: Buffer, source: string) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(event: 'close', listener: () => void): unknown;
  /** Queues a datagram; `beforeSend` runs right before sendto(2), `afterSend` right after. */
  send(
    buffer: Buffer,
    offset: number,
    length: number,
    address: string,
    beforeSend: () => void,
    afterSend: (error: Error | null, bytes: number) => void,
  ): unknown;
  /**
   * The addon's native handle: `send` is sendto(2) at once, in the caller's tick (it throws on
   * failure, `Resource temporarily unavailable` when the send buffer is full). Absent: only the
   * queued `send` above.
   */
  readonly wrap?: {
    send(buffer: Buffer, offset: number, length: number, address: string, afterSend: (bytes: number) => void): unknown;
  };
  setOption(level: number, option: number, value: number): void;
  setOption(level: number, option: number, value: Buffer, length: number): void;
  pauseRecv(): unknown;
  resumeRecv(): unknown;
  close(): unknown;
}

export interface RawSocketModule {
  createSocket(options: { protocol: number; addressFamily: number }): RawSocket;
  readonly AddressFamily: { readonly IPv4: number; readonly IPv6: number };
  readonly Protocol: { readonly ICMP: number; readonly ICMPv6: number };
}

export interface IcmpPingerOptions {
  /** The raw-socket module; default: the `raw-socket` addon. A test seam. */
  rawSocket?: RawSocketModule;
}

type Family = 4 | 6;

interface Pending {
  readonly sequence: number;
  /** The destination address as given, and as bytes: replies must come from it. */
  readonly address: string;
  readonly target: Buffer;
  readonly signal: AbortSignal;
  readonly onAbort: () => void;
  readonly resolve: (result: PingResult) => void;
  /** Monotonic time right before sendto(2); null while queued. */
  sentAt: bigint | null;
  /** The socket is done with the request (sent, failed, or the socket is gone). */
  sendDone: boolean;
  settled: boolean;
}

/** One shared raw socket and its in-flight requests. */
class Channel {
  socket: RawSocket | null = null;
  /** Why this family is unavailable; null while usable (or not yet tried). */
  failure: string | null = null;
  lastError: string | null = null;
  /** In-flight requests by sequence number (a request stays until its send is done). */
  readonly pending = new Map<number, Pending>();
  nextSequence = 0;
  /** Addresses pinged lately, as bytes (a monitor pings the same address every interval). */
  readonly targets = new Map<string, Buffer>();
  constructor(readonly family: Family) {}
}

// Echo request/reply and error types per family (RFC 792, RFC 4443).
const TYPES = {
  4: { request: 8, reply: 0, unreachable: 3, timeExceeded: 11 },
  6: { request: 128, reply: 129, unreachable: 1, timeExceeded: 3 },
} as const;

// Linux socket options, applied best effort (the addon only exports a few constants).
const SOL_SOCKET = 1;
const SO_RCVBUF = 8;
const SO_RCVBUFFORCE = 33;
const SOL_RAW = 255;
const ICMP_FILTER = 1;
const IPPROTO_ICMPV6 = 58;
const ICMP6_FILTER = 1;
/** Replies of thousands of concurrent pings must fit while the loop is busy. */
const RECEIVE_BUFFER_BYTES = 1 << 20;

/**
 * ICMP echo ("ping") over one shared raw socket per address family, so thousands of pings
 * can be in flight at once. Each request carries this pinger's identifier and a 16-bit
 * sequence number that no other in-flight request of the family holds; a reply is matched
 * by (identifier, sequence, source address) and must echo the pinger's payload. A
 * destination-unreachable (ICMPv4 type 3, ICMPv6 type 1) is matched by the request it
 * quotes (identifier, sequence, original destination).
 *
 * Raw sockets need root or CAP_NET_RAW. `IcmpPinger.open()` never throws: when a socket
 * cannot be created, that family reports `available === false` with an `unavailableReason`.
 * Sockets open lazily (on the first ping or availability question) unless `open()` opened
 * them. They do not keep the process alive while no ping is in flight.
 */
export class IcmpPinger {
  private static nextIdentifier = randomInt(0x10000);

  /** The ICMP identifier of this pinger's requests (unique per process). */
  readonly identifier: number;
  /** Echoed back by every genuine reply: "picket", two zero bytes, 8 random bytes. */
  private readonly payload: Buffer;
  private readonly channels: Readonly<Record<Family, Channel>> = { 4: new Channel(4), 6: new Channel(6) };
  private rawSocket: RawSocketModule | undefined;
  private closed = false;

  constructor(options: IcmpPingerOptions = {}) {
    this.identifier = IcmpPinger.nextIdentifier;
    IcmpPinger.nextIdentifier = (IcmpPinger.nextIdentifier + 1) & 0xffff;
    this.payload = Buffer.concat([Buffer.from('picket\0\0', 'latin1'), randomBytes(8)]);
    this.rawSocket = options.rawSocket;
  }

  /** A pinger with both sockets opened (or their unavailability known). Never throws. */
  static async open(options: IcmpPingerOptions = {}): Promise<IcmpPinger> {
    const pinger = new IcmpPinger(options);
    pinger.socketFor(4);
    pinger.socketFor(6);
    return pinger;
  }

  /** A pinger that cannot ping, for either family, because of `reason` (tests, ICMP disabled). */
  static unavailable(reason: string): IcmpPinger {
    const pinger = new IcmpPinger();
    pinger.channels[4].failure = reason;
    pinger.channels[6].failure = reason;
    return pinger;
  }

  /** Whether IPv4 pings can be sent (the raw socket could be created). */
  get available(): boolean {
    return this.availableFor(4);
  }

  /** Why IPv4 pings cannot be sent, or null. */
  get unavailableReason(): string | null {
    return this.unavailableReasonFor(4);
  }

  get ipv6Available(): boolean {
    return this.availableFor(6);
  }

  get ipv6UnavailableReason(): string | null {
    return this.unavailableReasonFor(6);
  }

  availableFor(family: Family): boolean {
    return this.socketFor(family) !== null;
  }

  unavailableReasonFor(family: Family): string | null {
    return this.socketFor(family) === null ? (this.channels[family].failure ?? CLOSED_REASON) : null;
  }

  /** Requests whose sequence number is taken (in flight, or aborted but not yet sent). */
  get inFlight(): number {
    return this.channels[4].pending.size + this.channels[6].pending.size;
  }

  /**
   * Sends one echo request to `address` (an IP literal of `family`) and waits for its reply
   * until `signal` aborts. Never rejects.
   */
  ping(address: string, family: Family, signal: AbortSignal): Promise<PingResult> {
    if (signal.aborted) return Promise.resolve(abortResult(signal));
    const channel = this.channels[family];
    const socket = this.socketFor(family);
    if (socket === null) return Promise.resolve({ error: channel.failure ?? CLOSED_REASON, local: true });
    const target = targetBytes(channel, address);
    if (target === null) return Promise.resolve({ error: `not an IPv${family} address: ${address}`, local: true });
    const sequence = takeSequence(channel);
    if (sequence === null) return Promise.resolve({ error: 'too many pings in flight', local: true });
    const packet = this.echoRequest(family, sequence);

    return new Promise<PingResult>((resolve) => {
      const pending: Pending = {
        sequence,
        address,
        target,
        signal,
        onAbort: () => this.settle(channel, pending, abortResult(signal)),
        resolve,
        sentAt: null,
        sendDone: false,
        settled: false,
      };
      channel.pending.set(sequence, pending);
      // Removed when the request settles, by its abort too.
      signal.addEventListener('abort', pending.onAbort);
      this.updateReceiving(channel);
      const afterSend = (error: Error | null) => {
        pending.sendDone = true;
        if (pending.settled) this.release(channel, pending);
        else if (error !== null) this.settle(channel, pending, sendFailure(error));
      };
      if (this.sendAtOnce(socket, packet, address, pending, afterSend)) return;
      try {
        socket.send(
          packet,
          0,
          packet.length,
          address,
          () => {
            pending.sentAt = process.hrtime.bigint();
          },
          afterSend,
        );
      } catch (error) {
        afterSend(error instanceof Error ? error : new Error(String(error)));
      }
    });
  }

  /**
   * Sends the echo request now, in this tick, when the addon allows: the queued `send` costs a
   * wakeup per datagram (the socket's writable event sends one request each, then another
   * pauses it), so a batch's pings, started in one tick, also leave in it
   * (docs/decisions/0034-batched-probe-traffic.md). False when the request must take the queue:
   * no native handle, or a full send buffer.
   */
  private sendAtOnce(
    socket: RawSocket,
    packet: Buffer,
    address: string,
    pending: Pending,
    afterSend: (error: Error | null) => void,
  ): boolean {
    const native = socket.wrap;
    if (!native || this.queuedSends(socket) > 0) return false;
    pending.sentAt = process.hrtime.bigint();
    try {
      native.send(packet, 0, packet.length, address, () => undefined);
    } catch (error) {
      pending.sentAt = null;
      if (/temporarily unavailable|EAGAIN|EWOULDBLOCK|No buffer space/i.test(messageOf(error))) return false;
      afterSend(error instanceof Error ? error : new Error(messageOf(error)));
      return true;
    }
    afterSend(null);
    return true;
  }

  /** Requests waiting in the addon's queue: while any does, later ones queue behind it (order kept). */
  private queuedSends(socket: RawSocket): number {
    return (socket as { requests?: unknown[] }).requests?.length ?? 0;
  }

  /** Closes both sockets; pending pings answer `aborted`, later ones fail at once. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const channel of [this.channels[4], this.channels[6]]) {
      const socket = channel.socket;
      channel.socket = null;
      channel.failure = CLOSED_REASON;
      for (const pending of [...channel.pending.values()]) {
        pending.sendDone = true;
        this.settle(channel, pending, { error: 'aborted' });
      }
      channel.pending.clear();
      socket?.close();
    }
  }

  // ---- sockets ------------------------------------------------------------------------------

  /** The family's socket, opened on first use; null when it cannot be (see channel.failure). */
  private socketFor(family: Family): RawSocket | null {
    const channel = this.channels[family];
    if (channel.socket !== null || channel.failure !== null) return channel.socket;
    let raw: RawSocketModule;
    try {
      raw = this.rawSocket ??= loadRawSocket();
    } catch (error) {
      channel.failure = `ICMP is unavailable: the raw-socket native module could not be loaded (${messageOf(error)})`;
      return null;
    }
    let socket: RawSocket;
    try {
      socket = raw.createSocket({
        protocol: family === 4 ? raw.Protocol.ICMP : raw.Protocol.ICMPv6,
        addressFamily: family === 4 ? raw.AddressFamily.IPv4 : raw.AddressFamily.IPv6,
      });
    } catch (error) {
      channel.failure = openFailure(family, error);
      return null;
    }
    socket.on('message', (buffer, source) => this.receive(channel, buffer, source));
    socket.on('error', (error) => {
      // A failed receive is reported and the socket lives on; a failed socket also closes.
      channel.lastError = error.message;
    });
    socket.on('close', () => this.socketClosed(channel, socket));
    configure(socket, family);
    channel.socket = socket;
    channel.lastError = null;
    this.updateReceiving(channel);
    return socket;
  }

  /** The socket closed under us (an I/O error): fail its pings; the next ping reopens one. */
  private socketClosed(channel: Channel, socket: RawSocket): void {
    if (channel.socket !== socket) return; // closed by close()
    channel.socket = null;
    const error = `the ICMP socket failed${channel.lastError === null ? '' : `: ${channel.lastError}`}`;
    for (const pending of [...channel.pending.values()]) {
      pending.sendDone = true;
      this.settle(channel, pending, { error, local: true });
    }
    channel.pending.clear();
  }

  /**
   * Receives only while a ping is in flight: a paused socket has no active event watcher, so
   * an idle pinger does not keep the process alive (the addon offers no unref()).
   */
  private updateReceiving(channel: Channel): void {
    const socket = channel.socket;
    if (socket === null) return;
    const wanted = channel.pending.size > 0;
    if (wanted && socket.recvPaused) socket.resumeRecv();
    else if (!wanted && !socket.recvPaused) socket.pauseRecv();
  }

  // ---- requests and replies -----------------------------------------------------------------

  private echoRequest(family: Family, sequence: number): Buffer {
    // From Node's shared pool (no zeroing, no buffer of its own): every byte is written below.
    const packet = Buffer.allocUnsafe(8 + this.payload.length);
    packet.writeUInt8(TYPES[family].request, 0);
    packet.writeUInt8(0, 1);
    packet.writeUInt16BE(0, 2);
    packet.writeUInt16BE(this.identifier, 4);
    packet.writeUInt16BE(sequence, 6);
    this.payload.copy(packet, 8);
    // The kernel computes ICMPv6 checksums (they cover a pseudo-header); ICMPv4's are ours.
    if (family === 4) packet.writeUInt16BE(icmpChecksum(packet), 2);
    return packet;
  }

  private receive(channel: Channel, buffer: Buffer, source: string): void {
    const message = channel.family === 4 ? parseIpv4Packet(buffer) : parseIcmpMessage(buffer, 6);
    if (message === null || message.identifier !== this.identifier) return;
    const pending = channel.pending.get(message.sequence);
    if (pending === undefined || pending.settled || pending.sentAt === null) return;
    if (message.kind === 'reply') {
      if (source !== pending.address && !sameAddress(pending.target, source, channel.family)) return;
      if (!startsWith(message.payload, this.payload)) return;
      const rttMs = Number(process.hrtime.bigint() - pending.sentAt) / 1e6;
      this.settle(channel, pending, { rttMs });
    } else {
      if (!message.destination.equals(pending.target)) return;
      this.settle(
        channel,
        pending,
        message.kind === 'unreachable' ? { error: 'unreachable' } : { error: 'time exceeded in transit' },
      );
    }
  }

  private settle(channel: Channel, pending: Pending, result: PingResult): void {
    if (pending.settled) return;
    pending.settled = true;
    pending.signal.removeEventListener('abort', pending.onAbort);
    // A request still queued keeps its sequence number until it is sent (or dropped), so a
    // reply to it can never be taken for a later request's.
    if (pending.sendDone) this.release(channel, pending);
    pending.resolve(result);
  }

  private release(channel: Channel, pending: Pending): void {
    if (channel.pending.get(pending.sequence) === pending) channel.pending.delete(pending.sequence);
    this.updateReceiving(channel);
  }
}

/** The next free sequence number of the family (wrapping at 16 bits), or null when all are taken. */
function takeSequence(channel: Channel): number | null {
  if (channel.pending.size > 0xffff) return null;
  let sequence = channel.nextSequence;
  while (channel.pending.has(sequence)) sequence = (sequence + 1) & 0xffff;
  channel.nextSequence = (sequence + 1) & 0xffff;
  return sequence;
}

function loadRawSocket(): RawSocketModule {
  return createRequire(import.meta.url)('raw-socket') as RawSocketModule;
}

/** Best effort (Linux): a larger receive buffer, and a kernel filter passing only the types we read. */
function configure(socket: RawSocket, family: Family): void {
  if (process.platform !== 'linux') return;
  try {
    socket.setOption(SOL_SOCKET, SO_RCVBUFFORCE, RECEIVE_BUFFER_BYTES);
  } catch {
    try {
      socket.setOption(SOL_SOCKET, SO_RCVBUF, RECEIVE_BUFFER_BYTES);
    } catch {
      // the default buffer will do
    }
  }
  const { reply, unreachable, timeExceeded } = TYPES[family];
  try {
    if (family === 4) {
      // ICMP_FILTER: a 32-bit mask of types to drop.
      socket.setOption(SOL_RAW, ICMP_FILTER, ~((1 << reply) | (1 << unreachable) | (1 << timeExceeded)) >>> 0);
    } else {
      // ICMP6_FILTER: 256 bits (eight host-order 32-bit words, as a Uint32Array holds them) of types to block.
      const words = new Uint32Array(8).fill(0xffffffff);
      for (const type of [reply, unreachable, timeExceeded]) {
        words[type >> 5] = (words[type >> 5] ?? 0) & ~(1 << (type & 31));
      }
      const filter = Buffer.from(words.buffer);
      socket.setOption(IPPROTO_ICMPV6, ICMP6_FILTER, filter, filter.length);
    }
  } catch {
    // without the filter the pinger reads (and ignores) every ICMP message
  }
}

function openFailure(family: Family, error: unknown): string {
  const message = messageOf(error);
  if (/not permitted|permission denied|\bEPERM\b|\bEACCES\b/i.test(message)) return ICMP_CAPABILITY_HINT;
  if (family === 6 && /family not supported|protocol not supported|EAFNOSUPPORT|EPROTONOSUPPORT/i.test(message)) {
    return `ICMPv6 is unavailable: this host does not support IPv6 (${message})`;
  }
  return `could not open the ${family === 4 ? 'ICMP' : 'ICMPv6'} raw socket: ${message}`;
}

function sendFailure(error: Error): PingResult {
  if (/unreachable|no route to host/i.test(error.message)) return { error: 'unreachable' };
  return { error: `could not send the echo request: ${error.message}`, local: true };
}

function abortResult(signal: AbortSignal): PingResult {
  const reason: unknown = signal.reason;
  const deadline =
    reason instanceof ProbeDeadline || (reason instanceof DOMException && reason.name === 'TimeoutError');
  return { error: deadline ? 'timeout' : 'aborted' };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

// ---- wire format ------------------------------------------------------------------------------

type IcmpMessage =
  | { kind: 'reply'; identifier: number; sequence: number; payload: Buffer }
  | { kind: 'unreachable' | 'time-exceeded'; identifier: number; sequence: number; destination: Buffer };

/** The Internet checksum (RFC 1071) of `data`, with its checksum field zero. */
export function icmpChecksum(data: Buffer): number {
  let sum = 0;
  for (let i = 0; i + 1 < data.length; i += 2) sum += data.readUInt16BE(i);
  if (data.length % 2 === 1) sum += data.readUInt8(data.length - 1) << 8;
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
  return ~sum & 0xffff;
}

/** IPv4 raw sockets deliver the IP header first. */
function parseIpv4Packet(packet: Buffer): IcmpMessage | null {
  if (packet.length < 20 || packet.readUInt8(0) >> 4 !== 4) return null;
  const headerLength = (packet.readUInt8(0) & 0x0f) * 4;
  if (headerLength < 20 || packet.length < headerLength) return null;
  return parseIcmpMessage(packet.subarray(headerLength), 4);
}

function parseIcmpMessage(icmp: Buffer, family: Family): IcmpMessage | null {
  if (icmp.length < 8) return null;
  const type = icmp.readUInt8(0);
  const types = TYPES[family];
  if (type === types.reply) {
    return {
      kind: 'reply',
      identifier: icmp.readUInt16BE(4),
      sequence: icmp.readUInt16BE(6),
      payload: icmp.subarray(8),
    };
  }
  if (type !== types.unreachable && type !== types.timeExceeded) return null;
  // The error quotes the offending packet: its IP header, then (at least) 8 bytes of our request.
  const quoted = icmp.subarray(8);
  let destination: Buffer;
  let request: Buffer;
  if (family === 4) {
    if (quoted.length < 20 || quoted.readUInt8(0) >> 4 !== 4 || quoted.readUInt8(9) !== 1) return null;
    destination = quoted.subarray(16, 20);
    request = quoted.subarray((quoted.readUInt8(0) & 0x0f) * 4);
  } else {
    if (quoted.length < 40 || quoted.readUInt8(0) >> 4 !== 6 || quoted.readUInt8(6) !== IPPROTO_ICMPV6) return null;
    destination = quoted.subarray(24, 40);
    request = quoted.subarray(40);
  }
  if (request.length < 8 || request.readUInt8(0) !== types.request) return null;
  return {
    kind: type === types.unreachable ? 'unreachable' : 'time-exceeded',
    identifier: request.readUInt16BE(4),
    sequence: request.readUInt16BE(6),
    destination,
  };
}

function startsWith(data: Buffer, prefix: Buffer): boolean {
  return data.length >= prefix.length && data.compare(prefix, 0, prefix.length, 0, prefix.length) === 0;
}

/** How many addresses a channel keeps as bytes; past it the cache starts over. */
const TARGETS_KEPT = 4096;

/** `address` as the channel's family's bytes (kept for the next ping), or null when it is not one. */
function targetBytes(channel: Channel, address: string): Buffer | null {
  const known = channel.targets.get(address);
  if (known !== undefined) return known;
  const bytes = isIP(address) === channel.family ? addressBytes(address, channel.family) : null;
  if (bytes === null) return null;
  if (channel.targets.size >= TARGETS_KEPT) channel.targets.clear();
  channel.targets.set(address, bytes);
  return bytes;
}

function sameAddress(target: Buffer, source: string, family: Family): boolean {
  const bytes = addressBytes(source, family);
  return bytes !== null && bytes.equals(target);
}

/** An IP literal as its 4 or 16 bytes (an IPv6 zone is ignored); null when malformed. */
function addressBytes(address: string, family: Family): Buffer | null {
  return family === 4 ? ipv4Bytes(address) : ipv6Bytes(address);
}

function ipv4Bytes(address: string): Buffer | null {
  const parts = address.split('.');
  if (parts.length !== 4) return null;
  const bytes = Buffer.alloc(4);
  for (const [index, part] of parts.entries()) {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255) return null;
    bytes[index] = Number(part);
  }
  return bytes;
}

function ipv6Bytes(address: string): Buffer | null {
  let text = address.split('%')[0] ?? '';
  // An embedded IPv4 tail (::ffff:192.0.2.1) becomes two hex groups.
  const lastColon = text.lastIndexOf(':');
  if (text.includes('.', lastColon)) {
    const v4 = ipv4Bytes(text.slice(lastColon + 1));
    if (v4 === null) return null;
    text = `${text.slice(0, lastColon + 1)}${v4.readUInt16BE(0).toString(16)}:${v4.readUInt16BE(2).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const groups = (part: string | undefined): string[] => (part === undefined || part === '' ? [] : part.split(':'));
  const head = groups(halves[0]);
  const tail = groups(halves[1]);
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 0) return null;
  const all = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  const bytes = Buffer.alloc(16);
  for (const [index, group] of all.entries()) {
    if (!/^[0-9a-f]{1,4}$/i.test(group)) return null;
    bytes.writeUInt16BE(parseInt(group, 16), index * 2);
  }
  return bytes;
}
