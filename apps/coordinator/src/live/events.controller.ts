import { Controller, Get, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { CurrentPrincipal, RequirePermission } from '../auth/auth.guard.js';
import type { Principal } from '../auth/auth.service.js';
import { AppError } from '../errors.js';
import { MonitorsRepository } from '../monitors/monitors.repository.js';
import { ApiOperation } from '../openapi/api-operation.js';
import { MAX_STREAMS_PER_ACCOUNT, StatusFeed, type StatusChange } from './status-feed.js';

/** A comment line this often keeps proxies from closing a quiet stream. */
const KEEPALIVE_MS = 25_000;

/** Retry-After of a stream refused during shutdown: about when a replacement or restart answers. */
const CLOSING_RETRY_AFTER_SECONDS = 5;

/** One server-sent event. */
export function sseEvent(name: string, data: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** The wire form of a change (the API's names and units). */
export function changeEvent(change: StatusChange): string {
  return sseEvent('status', { monitor_id: change.monitorId, status: change.status, changed_at: change.changedAt });
}

/**
 * Live status for the dashboard (docs/decisions/0028-live-status.md): `GET /api/events`, a
 * server-sent event stream of the account's monitor status changes, authenticated and charged
 * like any GET, at most MAX_STREAMS_PER_ACCOUNT open per account and replica.
 */
@Controller('api/events')
export class EventsController {
  constructor(
    private readonly feed: StatusFeed,
    private readonly monitors: MonitorsRepository,
  ) {}

  @Get()
  @RequirePermission('monitors:read')
  @ApiOperation({
    operationId: 'streamStatusChanges',
    tag: 'Monitors',
    summary: 'Stream status changes',
    description:
      'Server-sent events (`text/event-stream`): first `event: ready` with `{"last_status_change"}` (the newest ' +
      "`last_status_change` of the account's monitors, null without any: a client holding older data missed a " +
      'change made before the stream was ready), then one `event: status` with ' +
      '`{"monitor_id","status","changed_at"}` for every status change of the account\'s monitors (up or down; ' +
      '`unknown` is computed on read and not streamed), and a comment line every 25 s. A change is a hint to ' +
      `reload: a missed one is not replayed. At most ${MAX_STREAMS_PER_ACCOUNT} streams per account and ` +
      'coordinator; more get 429. A coordinator that is shutting down takes no new stream (503 with Retry-After) ' +
      'and ends the open ones. The stream never ends on its own otherwise; browsers reconnect after 3 s.',
    success: { description: 'The stream.', text: 'text/event-stream' },
    errors: ['RATE_LIMIT_EXCEEDED', 'SERVICE_UNAVAILABLE'],
    stream: true,
  })
  async stream(@CurrentPrincipal() principal: Principal, @Res() reply: FastifyReply): Promise<void> {
    const raw = reply.raw;
    const timer: { keepalive?: NodeJS.Timeout } = {};
    // Changes that come while `ready` is being worked out follow it, in their order.
    let held: StatusChange[] | null = [];
    const unsubscribe = this.feed.subscribe(principal.accountId, {
      change: (change) => (held ? held.push(change) : raw.write(changeEvent(change))),
      end: () => {
        clearInterval(timer.keepalive);
        raw.end();
      },
    });
    if (unsubscribe === 'full') {
      throw new AppError(
        'RATE_LIMIT_EXCEEDED',
        `At most ${MAX_STREAMS_PER_ACCOUNT} live streams per account are open at once.`,
        undefined,
        { 'Retry-After': '30' },
      );
    }
    if (unsubscribe === 'closing') {
      throw new AppError(
        'SERVICE_UNAVAILABLE',
        'This coordinator is shutting down and takes no new live streams; reconnect (to another replica) shortly.',
        undefined,
        { 'Retry-After': String(CLOSING_RETRY_AFTER_SECONDS) },
      );
    }
    reply.hijack();
    raw.writeHead(200, {
      ...(reply.getHeaders() as Record<string, string>),
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
    });
    raw.on('close', () => {
      clearInterval(timer.keepalive);
      unsubscribe();
    });
    // Read after subscribing: a change is either in it or streamed after it.
    const last = await this.monitors.lastStatusChangeOf(principal.accountId).catch(() => null);
    if (raw.destroyed || raw.writableEnded) return;
    raw.write(`retry: 3000\n${sseEvent('ready', { last_status_change: last })}`);
    for (const change of held) raw.write(changeEvent(change));
    held = null;
    timer.keepalive = setInterval(() => raw.write(': keepalive\n\n'), KEEPALIVE_MS);
  }
}
