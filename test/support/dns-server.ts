import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { isIPv4 } from 'node:net';

/**
 * A small authoritative DNS server over UDP on 127.0.0.1 for tests (tests never resolve real
 * names): answers from a zone given as data, NXDOMAIN for names it does not know, an empty
 * answer (NODATA) for a known name without records of the asked type, SERVFAIL for names listed
 * in `servfail`, and nothing at all for names listed in `silent` (a timeout).
 */

export type DnsRecord =
  | { type: 'A' | 'AAAA' | 'CNAME' | 'NS'; value: string }
  | { type: 'MX'; priority: number; exchange: string }
  | { type: 'TXT'; strings: string[] }
  | { type: 'CAA'; flags: number; tag: string; value: string }
  | {
      type: 'SOA';
      nsname: string;
      hostmaster: string;
      serial: number;
      refresh: number;
      retry: number;
      expire: number;
      minttl: number;
    };

export interface DnsZone {
  /** Records by lower-case name without the trailing dot. */
  records: Record<string, DnsRecord[]>;
  servfail?: string[];
  silent?: string[];
}

export interface TestDnsServer {
  /** `127.0.0.1:<port>`, as a monitor's `resolver`. */
  readonly address: string;
  readonly port: number;
  /** Queries received, as `<name> <TYPE>`. */
  readonly queries: string[];
  zone: DnsZone;
  close(): Promise<void>;
}

const TYPE_CODES: Record<DnsRecord['type'], number> = {
  A: 1,
  NS: 2,
  CNAME: 5,
  SOA: 6,
  MX: 15,
  TXT: 16,
  AAAA: 28,
  CAA: 257,
};
const TYPE_NAMES = new Map(Object.entries(TYPE_CODES).map(([name, code]) => [code, name]));

export async function startDnsServer(zone: DnsZone): Promise<TestDnsServer> {
  const socket: Socket = createSocket('udp4');
  const queries: string[] = [];
  const server = {
    address: '',
    port: 0,
    queries,
    zone,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
  socket.on('message', (message: Buffer, peer: RemoteInfo) => {
    const reply = answer(message, server.zone, queries);
    if (reply) socket.send(reply, peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  server.port = socket.address().port;
  server.address = `127.0.0.1:${server.port}`;
  return server;
}

function answer(query: Buffer, zone: DnsZone, queries: string[]): Buffer | null {
  if (query.length < 12) return null;
  const { name, end } = readName(query, 12);
  const qtype = query.readUInt16BE(end);
  const question = query.subarray(12, end + 4);
  const key = name.toLowerCase();
  queries.push(`${key} ${TYPE_NAMES.get(qtype) ?? qtype}`);
  if (zone.silent?.includes(key)) return null;
  const known = zone.records[key];
  let rcode = 0;
  let answers: Buffer[] = [];
  if (zone.servfail?.includes(key)) rcode = 2;
  else if (!known) rcode = 3;
  else answers = known.filter((r) => TYPE_CODES[r.type] === qtype).map((r) => resourceRecord(r));
  const header = Buffer.alloc(12);
  header.writeUInt16BE(query.readUInt16BE(0), 0);
  // QR, the query's opcode and RD, AA and RA set; the rcode.
  const flags = 0x8000 | (query.readUInt16BE(2) & 0x7900) | 0x0400 | 0x0080 | rcode;
  header.writeUInt16BE(flags, 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(answers.length, 6);
  return Buffer.concat([header, question, ...answers]);
}

function readName(buffer: Buffer, start: number): { name: string; end: number } {
  const labels: string[] = [];
  let at = start;
  for (;;) {
    const length = buffer[at] ?? 0;
    at += 1;
    if (length === 0) break;
    labels.push(buffer.toString('latin1', at, at + length));
    at += length;
  }
  return { name: labels.join('.'), end: at };
}

function encodeName(name: string): Buffer {
  const parts = name
    .replace(/\.$/, '')
    .split('.')
    .filter(Boolean)
    .map((label) => Buffer.concat([Buffer.from([label.length]), Buffer.from(label, 'latin1')]));
  return Buffer.concat([...parts, Buffer.from([0])]);
}

function u16(value: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(value);
  return b;
}

function u32(value: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(value);
  return b;
}

function rdata(record: DnsRecord): Buffer {
  switch (record.type) {
    case 'A':
      if (!isIPv4(record.value)) throw new Error(`not an IPv4 address: ${record.value}`);
      return Buffer.from(record.value.split('.').map(Number));
    case 'AAAA':
      return ipv6Bytes(record.value);
    case 'CNAME':
    case 'NS':
      return encodeName(record.value);
    case 'MX':
      return Buffer.concat([u16(record.priority), encodeName(record.exchange)]);
    case 'TXT':
      return Buffer.concat(record.strings.map((s) => Buffer.concat([Buffer.from([s.length]), Buffer.from(s)])));
    case 'CAA':
      return Buffer.concat([
        Buffer.from([record.flags, record.tag.length]),
        Buffer.from(record.tag),
        Buffer.from(record.value),
      ]);
    case 'SOA':
      return Buffer.concat([
        encodeName(record.nsname),
        encodeName(record.hostmaster),
        ...[record.serial, record.refresh, record.retry, record.expire, record.minttl].map(u32),
      ]);
  }
}

function resourceRecord(record: DnsRecord): Buffer {
  const data = rdata(record);
  // The name is a pointer to the question's name (offset 12); class IN, TTL 60.
  return Buffer.concat([u16(0xc00c), u16(TYPE_CODES[record.type]), u16(1), u32(60), u16(data.length), data]);
}

function ipv6Bytes(address: string): Buffer {
  const [head = '', tail = ''] = address.split('::');
  const headParts = head ? head.split(':') : [];
  const tailParts = address.includes('::') && tail ? tail.split(':') : [];
  const missing = 8 - headParts.length - tailParts.length;
  const groups = [...headParts, ...Array<string>(address.includes('::') ? missing : 0).fill('0'), ...tailParts];
  return Buffer.concat(groups.map((g) => u16(parseInt(g, 16))));
}
