import { connect, type NatsConnection } from '@nats-io/transport-node';

export type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';

export interface NatsLogger {
  log(message: string): void;
  warn(message: string): void;
}

/**
 * Connects to NATS and keeps reconnecting for ever (the first connection included), logging
 * each disconnect and reconnect. NATS is transport only: losing it delays work, never loses it.
 */
export async function connectNats(servers: string, name: string, logger: NatsLogger): Promise<NatsConnection> {
  const nc = await connect({
    servers: servers.split(',').map((s) => s.trim()),
    name,
    waitOnFirstConnect: true,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 1000,
    pingInterval: 10_000,
    maxPingOut: 3,
  });
  logger.log(`connected to NATS ${nc.getServer()}`);
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect') logger.warn(`NATS connection lost (${String(status.server)}); reconnecting`);
      else if (status.type === 'reconnect') logger.log(`NATS reconnected (${String(status.server)})`);
    }
  })().catch(() => undefined);
  return nc;
}
