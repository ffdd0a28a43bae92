import { afterEach, expect, it } from '@jest/globals';
import { Controller, Module, type INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { randomBytes } from 'node:crypto';
import { describeWithNats, testNatsUrl } from '../../../test/support/nats.js';
import { waitFor } from '../../../test/support/wait.js';
import { NatsLink } from './nats.js';
import { NatsLinkServer, NOT_JSON } from './nats-server.js';

const seen: unknown[] = [];
let release: (() => void) | null = null;

@Controller()
class EchoController {
  @MessagePattern('echo')
  echo(@Payload() payload: unknown): { echoed: unknown } | undefined {
    if (payload === NOT_JSON) {
      seen.push('not json');
      return undefined;
    }
    if (payload === 'silent') return undefined;
    return { echoed: payload };
  }

  @MessagePattern('slow')
  slow(@Payload() payload: unknown): Promise<unknown> {
    return new Promise((resolve) => (release = () => resolve({ finished: payload })));
  }

  @EventPattern('note')
  note(@Payload() payload: unknown): void {
    seen.push(payload);
  }
}

@Module({ controllers: [EchoController] })
class EchoModule {}

const quiet = { log: () => undefined, warn: () => undefined, error: () => undefined };

describeWithNats('NatsLinkServer (@nestjs/microservices over a NatsLink, plain JSON)', () => {
  const prefix = `nsrv_${randomBytes(4).toString('hex')}`;
  let app: INestApplicationContext | null = null;
  let link: NatsLink | null = null;
  let client: NatsConnection | null = null;
  let server: NatsLinkServer;

  async function start(): Promise<void> {
    link = new NatsLink(testNatsUrl()!, 'nats-server-spec', quiet, {
      connectTimeoutSeconds: 0,
      onGiveUp: () => undefined,
    });
    server = new NatsLinkServer(link, [
      { subject: `${prefix}.echo.a`, pattern: 'echo', queue: 'q' },
      { subject: `${prefix}.echo.b`, pattern: 'echo', queue: 'q' },
      { subject: `${prefix}.slow`, pattern: 'slow' },
      { subject: `${prefix}.note`, pattern: 'note' },
    ]);
    app = await NestFactory.createMicroservice(EchoModule, { strategy: server, logger: false });
    await app.init();
    await (app as unknown as { listen(): Promise<void> }).listen();
    link.start();
    await link.whenConnected();
    client = await connect({ servers: testNatsUrl()! });
    await client.flush();
    await link.connection!.flush();
  }

  afterEach(async () => {
    seen.length = 0;
    release = null;
    await app?.close();
    await link?.close();
    await client?.close();
  });

  it('routes every subject to its pattern and answers with the handler result as plain JSON', async () => {
    await start();
    for (const subject of [`${prefix}.echo.a`, `${prefix}.echo.b`]) {
      const reply = await client!.request(subject, JSON.stringify({ n: 1 }), { timeout: 2000 });
      expect(reply.json()).toEqual({ echoed: { n: 1 } });
    }
  });

  it("looks a request pattern's handler up once, not per message (Nest's lookup throws per plain pattern)", async () => {
    await start();
    const lookups: string[] = [];
    const lookup = server.getHandlerByPattern.bind(server);
    server.getHandlerByPattern = (pattern: string) => {
      lookups.push(pattern);
      return lookup(pattern);
    };
    for (let n = 0; n < 3; n++) {
      const reply = await client!.request(`${prefix}.echo.a`, JSON.stringify(n), { timeout: 2000 });
      expect(reply.json()).toEqual({ echoed: n });
    }
    expect(lookups).toEqual(['echo']);
  });

  it('delivers events without a reply, and hands a payload that is not JSON as NOT_JSON, unanswered', async () => {
    await start();
    client!.publish(`${prefix}.note`, JSON.stringify({ hello: 'world' }));
    await waitFor('the event', () => Promise.resolve(seen.length === 1 ? true : undefined), 2000);
    expect(seen).toEqual([{ hello: 'world' }]);
    await expect(client!.request(`${prefix}.echo.a`, '{not json', { timeout: 300 })).rejects.toThrow();
    await expect(client!.request(`${prefix}.echo.a`, JSON.stringify('silent'), { timeout: 300 })).rejects.toThrow();
    expect(seen).toContain('not json');
  });

  it('stopTaking lets a message already taken finish and answer, and takes no new one', async () => {
    await start();
    const pending = client!.request(`${prefix}.slow`, JSON.stringify(7), { timeout: 5000 });
    await waitFor('the slow request', () => Promise.resolve(release ?? undefined), 2000);
    const stopped = server.stopTaking();
    release!();
    expect((await pending).json()).toEqual({ finished: 7 });
    await stopped;
    await expect(client!.request(`${prefix}.echo.a`, JSON.stringify(1), { timeout: 300 })).rejects.toThrow(
      /503|no responders|TIMEOUT|timeout/i,
    );
    expect(link!.connected).toBe(true); // the link is its owner's to close
  });
});
