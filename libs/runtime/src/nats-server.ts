import { Logger } from '@nestjs/common';
import type { Deserializer, IncomingEvent, IncomingRequest, MessageHandler } from '@nestjs/microservices';
import { NatsContext, ServerNats } from '@nestjs/microservices';
import { isObservable } from 'rxjs';
import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import type { NatsLink } from './nats.js';

/** What a message handler receives when the payload was not JSON (it is dropped and logged there). */
export const NOT_JSON = Symbol('not JSON');

/** One subscription: messages on `subject` go to the handler of `pattern` (@MessagePattern / @EventPattern). */
export interface NatsRoute {
  readonly subject: string;
  readonly pattern: string;
  /** Queue group: each message goes to one member of the group. */
  readonly queue?: string;
}

/**
 * Picket's wire is plain JSON both ways (a ProbeRequest in, a ProbeResult out, a heartbeat),
 * not Nest's `{pattern, data, id}` packets: agents, coordinators and tools of other versions read
 * it as it is (docs/decisions/0014-nats-and-nest-microservices.md).
 */
class PlainJsonDeserializer implements Deserializer<Msg, IncomingRequest | IncomingEvent> {
  deserialize(msg: Msg, options?: Record<string, unknown>): IncomingRequest | IncomingEvent {
    let data: unknown;
    try {
      data = msg.json();
    } catch {
      data = NOT_JSON;
    }
    const pattern = String(options?.channel);
    // A message with a reply subject is a request (answered), one without an event.
    return msg.reply ? { id: msg.reply, pattern, data } : { pattern, data };
  }
}

/**
 * @nestjs/microservices' NATS server on Picket's NatsLink: Nest routes each message to the
 * handler its @MessagePattern / @EventPattern names, with the app's DI, pipes and hooks, while
 * the link keeps what Nest's own connect does not: the process starts (and serves /healthz)
 * before NATS answers, it reconnects with logged backoff, and one connection carries requests,
 * replies and heartbeats. Subscriptions are made when the link first connects (the client renews
 * them after reconnections). A handler that returns nothing sends no reply.
 */
export class NatsLinkServer extends ServerNats {
  private readonly natsLog = new Logger('NATS');
  private subs: Subscription[] = [];
  private taking = true;
  private stopped: Promise<void> | null = null;
  private readonly requestHandlers = new Map<string, MessageHandler>();

  constructor(
    private readonly link: NatsLink,
    private readonly routes: readonly NatsRoute[],
  ) {
    super({ deserializer: new PlainJsonDeserializer() });
  }

  override listen(callback: (error?: unknown) => void): Promise<void> {
    this.link.onConnected((nc) => {
      if (this.taking) this.subscribe(nc);
    });
    callback();
    return Promise.resolve();
  }

  /**
   * Events (no reply subject) take Nest's own path. A request is answered on a short path: the
   * handler Nest built (pipes, interceptors, exception filters and the processing hooks all
   * apply) is awaited and its value sent as plain JSON (each value of an Observable as a reply), without Nest's per-reply stream machinery
   * (an rxjs pipeline and a next-tick queue), which cost an agent 8–60 % more CPU per check
   * (docs/benchmarks.md). A request for a pattern without a handler is logged, unanswered.
   */
  override async handleMessage(channel: string, natsMsg: Msg): Promise<void> {
    if (!natsMsg.reply) {
      await super.handleMessage(channel, natsMsg);
      return;
    }
    const handler = this.requestHandler(channel);
    if (!handler) {
      this.natsLog.error(`no handler for requests on ${natsMsg.subject} (pattern ${channel})`);
      return;
    }
    const context = new NatsContext([natsMsg.subject, natsMsg.headers]);
    const { data } = (await this.deserializer.deserialize(natsMsg, { channel, replyTo: natsMsg.reply })) as {
      data: unknown;
    };
    // Typed void, returns the hook's promise: awaited so the subscription sees the handler through.
    const processing = this.runWithProcessingHooks(context, async (done) => {
      try {
        const result: unknown = await handler(data, context);
        if (isObservable(result)) {
          // Each value a stream gives is a reply of its own, sent as it comes (batched probe work:
          // docs/decisions/0034-batched-probe-traffic.md); the message is handled once the stream completes.
          await new Promise<void>((resolve, reject) => {
            result.subscribe({
              next: (value: unknown) => {
                if (value !== undefined) natsMsg.respond(JSON.stringify(value));
              },
              error: reject,
              complete: resolve,
            });
          });
          // A handler that returns nothing sends no reply.
        } else if (result !== undefined) natsMsg.respond(JSON.stringify(result));
      } catch (error) {
        this.natsLog.error(`handler of ${natsMsg.subject} failed: ${String(error)}`);
      } finally {
        done();
      }
    }) as unknown as Promise<void> | undefined;
    await processing;
  }

  /**
   * The handler of a request pattern, looked up once: Nest's lookup first tries the pattern as
   * JSON, which throws (and builds a stack trace) for every plain pattern such as `probe`; that
   * alone was most of the handler path's cost per message (docs/benchmarks.md).
   */
  private requestHandler(pattern: string): MessageHandler | null {
    const known = this.requestHandlers.get(pattern);
    if (known) return known;
    const handler = this.getHandlerByPattern(pattern);
    if (handler) this.requestHandlers.set(pattern, handler);
    return handler;
  }

  /** Takes no new messages: subscriptions drain (messages delivered are still handled); the link stays up. */
  stopTaking(): Promise<void> {
    this.taking = false;
    this.stopped ??= this.link.drainSubscriptions(this.subs);
    return this.stopped;
  }

  /** Nest's close, after the app's shutdown hooks: the link is the owner's to close. */
  override async close(): Promise<void> {
    await this.stopTaking();
  }

  override unwrap<T>(): T {
    return this.link.connection as T;
  }

  private subscribe(nc: NatsConnection): void {
    this.subs = this.routes.map((route) =>
      nc.subscribe(route.subject, {
        queue: route.queue,
        callback: (error, msg) => {
          if (error) {
            this.natsLog.warn(`subscription to ${route.subject}: ${error.message}`);
            return;
          }
          this.handleMessage(route.pattern, msg).catch((e: unknown) => this.natsLog.error(String(e)));
        },
      }),
    );
  }
}
