import type { Server as HttpServer, IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** The part of Fastify this needs: its server and a preClose hook. */
export interface DrainableHttp {
  readonly server: HttpServer;
  addHook(name: 'preClose', hook: (done: (error?: Error) => void) => void): unknown;
}

/** A TCP connection's identity, the same on its TLS socket (which proxies the address getters). */
function keyOf(socket: Socket): string | null {
  const { remoteAddress, remotePort } = socket;
  return remoteAddress === undefined || remotePort === undefined ? null : `${remoteAddress}|${remotePort}`;
}

/**
 * Lets an HTTP server stop in the time its requests take, not in keep-alive's time
 * (docs/decisions/0036-connection-drain.md). Node's `server.close()` closes only the connections
 * idle at that moment: one whose request was under way then stays open for the keep-alive timeout
 * (72 s) after its answer, and one that connected but never sent a request until the idle socket
 * timeout (120 s); Fastify's close waits for both. From Fastify's preClose on, this ends every
 * connection as soon as it has no request under way: at once when idle, after its answer otherwise.
 */
export function drainConnectionsOnClose(http: DrainableHttp): void {
  const sockets = new Map<string, Socket>();
  const underWay = new Map<string, number>();
  let closing = false;

  http.server.on('connection', (socket: Socket) => {
    const key = keyOf(socket);
    if (key === null) return;
    // Between preClose and the listener's close a connection can still arrive: nothing will answer it.
    if (closing) {
      socket.destroy();
      return;
    }
    sockets.set(key, socket);
    socket.once('close', () => {
      sockets.delete(key);
      underWay.delete(key);
    });
  });

  http.server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const key = keyOf(request.socket);
    if (key === null) return;
    const own = request.socket;
    underWay.set(key, (underWay.get(key) ?? 0) + 1);
    response.once('close', () => {
      const left = (underWay.get(key) ?? 1) - 1;
      if (left > 0) {
        underWay.set(key, left);
        return;
      }
      underWay.delete(key);
      // The answer is out: end the connection (TLS close_notify and FIN after what is queued).
      if (closing && !own.destroyed) own.end(() => own.destroy());
    });
  });

  http.addHook('preClose', (done) => {
    closing = true;
    for (const [key, socket] of sockets) if (!underWay.has(key)) socket.destroy();
    done();
  });
}
