import { readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { testPki } from '../test/support/tls.js';

const TICKS = 100; // USER_HZ: /proc/<pid>/stat counts CPU time in these

/** utime + stime of a process, in seconds. */
export function processCpu(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / TICKS;
}

export async function listen(server: Server | ReturnType<typeof createTcpServer>): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** Loopback targets every probe benchmark checks: HTTP and HTTPS answering "ok", a TCP listener. */
export interface LoopbackTargets {
  /** `http://127.0.0.1:<port>/` */
  http: string;
  /** `https://127.0.0.1:<port>/`, its certificate signed by the CA in `caFile`. */
  https: string;
  /** `127.0.0.1:<port>` */
  tcp: string;
  caFile: string;
  close(): void;
}

/** Starts the targets; the CA file is written into `dir`. */
export async function startTargets(dir: string): Promise<LoopbackTargets> {
  const pki = await testPki();
  const caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, pki.ca);
  const http = createHttpServer((_q, s) => s.end('ok'));
  const https = createHttpsServer({ key: pki.server.key, cert: pki.server.cert }, (_q, s) => s.end('ok'));
  const tcp = createTcpServer((socket) => socket.end());
  return {
    http: `http://127.0.0.1:${await listen(http)}/`,
    https: `https://127.0.0.1:${await listen(https)}/`,
    tcp: `127.0.0.1:${await listen(tcp)}`,
    caFile,
    close: () => {
      http.close();
      https.close();
      tcp.close();
    },
  };
}
