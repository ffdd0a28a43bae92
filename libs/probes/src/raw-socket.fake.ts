import { EventEmitter } from 'node:events';
import type { RawSocket, RawSocketModule } from './icmp-pinger.js';

/**
 * Test kit: a stand-in for the `raw-socket` addon. It records every datagram sent and the
 * test decides what arrives, so matching, ICMP errors, silence and aborts can be exercised
 * without a network. (Real-socket tests run against 127.0.0.1 and ::1.)
 */

export interface SentDatagram {
  family: 4 | 6;
  address: string;
  /** The ICMP message as sent (no IP header). */
  icmp: Buffer;
}

export class FakeRawSocketModule implements RawSocketModule {
  readonly AddressFamily = { IPv4: 1, IPv6: 2 };
  readonly Protocol = { ICMP: 1, ICMPv6: 58 };
  readonly sockets: FakeRawSocket[] = [];
  /** Per family, the message createSocket throws (as the addon does, e.g. "Operation not permitted"). */
  failures: Partial<Record<4 | 6, string>> = {};
  /**
   * Sockets get the addon's native handle (`wrap.send`: sent at once, in the caller's tick);
   * `sendBufferFull` makes it throw as a full send buffer does, so requests take the queue.
   */
  native = false;
  sendBufferFull = false;
  /** Called after every datagram is sent; e.g. answer it with `socket.deliver(echoReplyTo(sent))`. */
  onSend: ((sent: SentDatagram, socket: FakeRawSocket) => void) | null = null;

  createSocket(options: { protocol: number; addressFamily: number }): FakeRawSocket {
    const family = options.addressFamily === this.AddressFamily.IPv6 ? 6 : 4;
    const failure = this.failures[family];
    if (failure !== undefined) throw new Error(failure);
    const socket = new FakeRawSocket(family, this);
    this.sockets.push(socket);
    return socket;
  }

  socket(family: 4 | 6): FakeRawSocket {
    const socket = this.sockets.find((candidate) => candidate.family === family && !candidate.closed);
    if (socket === undefined) throw new Error(`no open IPv${family} socket`);
    return socket;
  }

  get sent(): SentDatagram[] {
    return this.sockets.flatMap((socket) => socket.sent);
  }
}

export class FakeRawSocket extends EventEmitter implements RawSocket {
  recvPaused = false;
  closed = false;
  readonly sent: SentDatagram[] = [];
  private readonly held: [Buffer, string][] = [];

  /** The native handle, when the module says so (FakeRawSocketModule.native). */
  readonly wrap?: RawSocket['wrap'];
  /** How many datagrams went through `wrap.send` (at once) rather than the queue. */
  sentAtOnce = 0;

  constructor(
    readonly family: 4 | 6,
    private readonly module: FakeRawSocketModule,
  ) {
    super();
    if (module.native) {
      this.wrap = {
        send: (buffer, offset, length, address, afterSend) => {
          if (this.module.sendBufferFull) throw new Error('Resource temporarily unavailable');
          const sent = { family: this.family, address, icmp: Buffer.from(buffer.subarray(offset, offset + length)) };
          this.sent.push(sent);
          this.sentAtOnce++;
          afterSend(length);
          this.module.onSend?.(sent, this);
        },
      };
    }
  }

  /** Like the addon: queued, sent on a later turn of the event loop. */
  send(
    buffer: Buffer,
    offset: number,
    length: number,
    address: string,
    beforeSend: () => void,
    afterSend: (error: Error | null, bytes: number) => void,
  ): this {
    const icmp = Buffer.from(buffer.subarray(offset, offset + length));
    setImmediate(() => {
      if (this.closed) return;
      beforeSend();
      const sent = { family: this.family, address, icmp };
      this.sent.push(sent);
      afterSend(null, length);
      this.module.onSend?.(sent, this);
    });
    return this;
  }

  setOption(): void {}

  pauseRecv(): this {
    this.recvPaused = true;
    return this;
  }

  resumeRecv(): this {
    this.recvPaused = false;
    for (const [buffer, source] of this.held.splice(0)) this.deliver(buffer, source);
    return this;
  }

  close(): this {
    this.closed = true;
    this.emit('close');
    return this;
  }

  /** A datagram arrives from `source` (held, like in the kernel, while receiving is paused). */
  deliver(buffer: Buffer, source: string): void {
    if (this.closed) return;
    if (this.recvPaused) this.held.push([buffer, source]);
    else this.emit('message', buffer, source);
  }
}

// ---- packets as the kernel delivers them --------------------------------------------------------

/** The echo reply to `sent`, from its destination (with an IPv4 header for IPv4). */
export function echoReplyTo(sent: SentDatagram, changes: { identifier?: number; payload?: Buffer } = {}): Buffer {
  const reply = Buffer.from(sent.icmp);
  reply.writeUInt8(sent.family === 4 ? 0 : 129, 0);
  if (changes.identifier !== undefined) reply.writeUInt16BE(changes.identifier, 4);
  if (changes.payload !== undefined) changes.payload.copy(reply, 8);
  return sent.family === 4 ? withIpv4Header(reply, sent.address, '127.0.0.1') : reply;
}

/** A destination-unreachable about `sent` (from a router), quoting its header and first 8 bytes. */
export function unreachableFor(sent: SentDatagram, quotedDestination = sent.address): Buffer {
  const error = Buffer.alloc(8);
  if (sent.family === 4) {
    error.writeUInt8(3, 0); // destination unreachable
    error.writeUInt8(1, 1); // host unreachable
    const quoted = withIpv4Header(sent.icmp.subarray(0, 8), '127.0.0.1', quotedDestination);
    return withIpv4Header(Buffer.concat([error, quoted]), '127.0.0.9', '127.0.0.1');
  }
  error.writeUInt8(1, 0); // destination unreachable
  error.writeUInt8(3, 1); // address unreachable
  const header = Buffer.alloc(40);
  header.writeUInt8(0x60, 0);
  header.writeUInt16BE(sent.icmp.length, 4);
  header.writeUInt8(58, 6); // next header: ICMPv6
  header.writeUInt8(64, 7);
  ipv6(quotedDestination).copy(header, 24);
  return Buffer.concat([error, header, sent.icmp]);
}

function withIpv4Header(payload: Buffer, source: string, destination: string): Buffer {
  const header = Buffer.alloc(20);
  header.writeUInt8(0x45, 0);
  header.writeUInt16BE(20 + payload.length, 2);
  header.writeUInt8(64, 8);
  header.writeUInt8(1, 9); // ICMP
  Buffer.from(source.split('.').map(Number)).copy(header, 12);
  Buffer.from(destination.split('.').map(Number)).copy(header, 16);
  return Buffer.concat([header, payload]);
}

/** Enough IPv6 parsing for the kit's addresses ("::1", "fd00::5", full forms). */
function ipv6(address: string): Buffer {
  const [head = '', tail] = address.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  const bytes = Buffer.alloc(16);
  groups.forEach((group, index) => bytes.writeUInt16BE(parseInt(group, 16), index * 2));
  return bytes;
}
