import { createInbox } from '@nats-io/transport-node';
import {
  batchElements,
  PROBE_BATCH_MAX_CHECKS,
  probeBatchSubjectOf,
  ProbeResultDto,
  subjectsFor,
  toWireBatch,
  unknownResult,
  type ProbeRequest,
  type ProbeResult,
  type Subjects,
} from '#contracts';
import type { Clock, Msg, NatsConnection, NatsLink, Subscription } from '#runtime';
import { checkInput } from '#validation';
import type { TimerHandle, Timers } from '../scheduling/timers.js';
import { flushAt, type WaitingCheck } from './batch-window.js';
import { answers, COORDINATOR_AGENT_ID, failureMessage, type NatsTransport } from './nats.transport.js';
import { REPLY_GRACE_MS, type ProbeTransport, type TransportFailure } from './probe-transport.js';

/**
 * How long a subject whose batches found no responder (agents of an older version, or whose
 * credentials do not allow batches) is served check by check before batches are tried again.
 */
export const BATCH_RETRY_MS = 30_000;

export interface BatchOptions {
  /** How long a batch collects checks (PROBE_BATCH_WINDOW_MS), bounded by batch-window.ts's rule. */
  windowMs: number;
  maxChecks?: number;
  /** A batch sent (its size), for metrics. */
  onBatch?: (checks: number) => void;
  /** A batch found no responder and its checks went one by one (see BATCH_RETRY_MS). */
  onFallback?: (subject: string) => void;
}

interface Waiter extends WaitingCheck {
  readonly request: ProbeRequest;
  readonly resolve: (result: ProbeResult) => void;
}

/** Checks collecting for one subject, not sent yet. */
interface Collecting {
  readonly subject: string;
  readonly openedAt: number;
  readonly waiters: Waiter[];
  timer: TimerHandle;
  timerAt: number;
}

/** A batch sent: its checks still waiting for their result, by check id. */
interface Sent {
  readonly subject: string;
  readonly sentAt: number;
  readonly waiting: Map<string, Waiter>;
  readonly timers: TimerHandle[];
}

/**
 * Core NATS, batched (docs/decisions/0034-batched-probe-traffic.md): the checks due for one
 * region within a short window travel as one message to the region's batch subject, taken by
 * one agent of the region's queue group (several batches spread over several agents). Its
 * results come back on this replica's own reply inbox, in as many replies as the agent likes,
 * matched by check id. Every check keeps what the single-check transport guarantees: its own
 * deadline (timeout_ms + REPLY_GRACE_MS from the batch's sending), a result only when it
 * answers the request field for field, else UNKNOWN with the reason; a batch nobody takes goes
 * check by check through `single` (an older agent, or none: then "no agent serves region").
 */
export class BatchingNatsTransport implements ProbeTransport {
  readonly kind = 'nats' as const;

  private readonly subjects: Subjects;
  private readonly maxChecks: number;
  private readonly collecting = new Map<string, Collecting>();
  private readonly sent = new Map<string, Sent>();
  /** Subjects served check by check until this time (no responder to their batches). */
  private readonly singleUntil = new Map<string, number>();
  private inbox: { nc: NatsConnection; prefix: string; sub: Subscription } | null = null;
  private seq = 0;

  constructor(
    private readonly link: NatsLink,
    subjectPrefix: string,
    private readonly clock: Clock,
    private readonly timers: Timers,
    private readonly single: NatsTransport,
    private readonly options: BatchOptions,
    private readonly onFailure: (failure: TransportFailure, request: ProbeRequest) => void = () => undefined,
  ) {
    this.subjects = subjectsFor(subjectPrefix);
    this.maxChecks = Math.min(options.maxChecks ?? PROBE_BATCH_MAX_CHECKS, PROBE_BATCH_MAX_CHECKS);
  }

  /** Checks collecting or sent whose results are not in yet. */
  get waiting(): number {
    let n = 0;
    for (const batch of this.collecting.values()) n += batch.waiters.length;
    for (const batch of this.sent.values()) n += batch.waiting.size;
    return n;
  }

  request(request: ProbeRequest): Promise<ProbeResult> {
    const subject = probeBatchSubjectOf(this.subjects, request);
    const now = this.clock.now();
    // Not connected, nobody may take it, or its agents take no batches: the single-check path says so.
    if (!subject || !this.link.connected || (this.singleUntil.get(subject) ?? 0) > now) {
      return this.single.request(request);
    }
    return new Promise<ProbeResult>((resolve) => {
      let batch = this.collecting.get(subject);
      if (!batch) {
        batch = { subject, openedAt: now, waiters: [], timer: null, timerAt: Number.POSITIVE_INFINITY };
        this.collecting.set(subject, batch);
      }
      batch.waiters.push({ request, resolve, scheduledAt: request.scheduled_at, queuedAt: now });
      const at = flushAt(batch.openedAt, batch.waiters, this.options.windowMs, { maxChecks: this.maxChecks, now });
      if (at <= now) {
        this.flush(batch);
      } else if (at < batch.timerAt) {
        if (batch.timer !== null) this.timers.clear(batch.timer);
        const collecting = batch;
        batch.timerAt = at;
        batch.timer = this.timers.set(() => this.flush(collecting), at - now);
      }
    });
  }

  /** Sends whatever is collecting now; checks in flight keep their deadlines. */
  async close(): Promise<void> {
    for (const batch of [...this.collecting.values()]) this.flush(batch);
    await Promise.resolve();
  }

  private flush(batch: Collecting): void {
    if (this.collecting.get(batch.subject) !== batch) return;
    this.collecting.delete(batch.subject);
    if (batch.timer !== null) this.timers.clear(batch.timer);
    const nats = this.link.connected ? this.link.connection : null;
    const inbox = nats ? this.inboxOn(nats) : null;
    if (!nats || !inbox) {
      for (const waiter of batch.waiters) void this.single.request(waiter.request).then(waiter.resolve);
      return;
    }
    const id = String(++this.seq);
    const sentAt = this.clock.now();
    const sent: Sent = { subject: batch.subject, sentAt, waiting: new Map(), timers: [] };
    for (const waiter of batch.waiters) sent.waiting.set(waiter.request.check_id, waiter);
    // One deadline timer per distinct timeout in the batch (most monitors share a few).
    const timeouts = new Set(batch.waiters.map((w) => w.request.timeout_ms));
    for (const timeout of timeouts) {
      sent.timers.push(this.timers.set(() => this.expire(id, timeout), timeout + REPLY_GRACE_MS));
    }
    this.sent.set(id, sent);
    this.options.onBatch?.(batch.waiters.length);
    try {
      nats.publish(batch.subject, JSON.stringify(toWireBatch(batch.waiters.map((w) => w.request))), {
        reply: `${inbox}.${id}`,
      });
    } catch {
      this.settleAll(id, 'transport');
    }
  }

  /** This replica's reply inbox on `nc`, subscribed once per connection. */
  private inboxOn(nc: NatsConnection): string | null {
    if (this.inbox?.nc === nc && !this.inbox.sub.isClosed()) return this.inbox.prefix;
    const prefix = createInbox();
    try {
      const sub = nc.subscribe(`${prefix}.*`, {
        callback: (error, msg) => {
          if (!error) this.onReply(prefix, msg);
        },
      });
      this.inbox = { nc, prefix, sub };
      // The link closed (drained at shutdown): what is still waiting will get no reply.
      void sub.closed.then(() => {
        if (this.inbox?.sub !== sub) return;
        this.inbox = null;
        for (const id of [...this.sent.keys()]) this.settleAll(id, 'transport');
      });
      return prefix;
    } catch {
      return null;
    }
  }

  private onReply(prefix: string, msg: Msg): void {
    const id = msg.subject.slice(prefix.length + 1);
    const batch = this.sent.get(id);
    if (!batch) return; // late: its checks are settled already
    if (msg.data.length === 0 && msg.headers?.code === 503) {
      this.fallBack(id, batch);
      return;
    }
    let payload: unknown;
    try {
      payload = msg.json();
    } catch {
      this.settleAll(id, 'invalid_reply');
      return;
    }
    const { elements } = batchElements(payload, 'results');
    if (!elements) {
      this.settleAll(id, 'invalid_reply');
      return;
    }
    for (const element of elements) {
      const checkId = (element as { check_id?: unknown } | null)?.check_id;
      const waiter = typeof checkId === 'string' ? batch.waiting.get(checkId) : undefined;
      if (!waiter) continue; // not asked in this batch, or answered already
      batch.waiting.delete(waiter.request.check_id);
      const { value } = checkInput(ProbeResultDto, element);
      if (value && answers(waiter.request, value)) {
        waiter.resolve({ ...value, timings: { ...value.timings } });
      } else {
        this.fail(waiter, 'invalid_reply', batch.sentAt);
      }
    }
    this.forgetIfDone(id, batch);
  }

  /** No agent takes this subject's batches: its checks go one by one, and so do the next ones for a while. */
  private fallBack(id: string, batch: Sent): void {
    this.sent.delete(id);
    for (const timer of batch.timers) this.timers.clear(timer);
    this.singleUntil.set(batch.subject, this.clock.now() + BATCH_RETRY_MS);
    this.options.onFallback?.(batch.subject);
    for (const waiter of batch.waiting.values()) void this.single.request(waiter.request).then(waiter.resolve);
  }

  private expire(id: string, timeout: number): void {
    const batch = this.sent.get(id);
    if (!batch) return;
    for (const waiter of [...batch.waiting.values()]) {
      if (waiter.request.timeout_ms !== timeout) continue;
      batch.waiting.delete(waiter.request.check_id);
      this.fail(waiter, 'timeout', batch.sentAt);
    }
    this.forgetIfDone(id, batch);
  }

  private settleAll(id: string, failure: TransportFailure): void {
    const batch = this.sent.get(id);
    if (!batch) return;
    for (const waiter of batch.waiting.values()) this.fail(waiter, failure, batch.sentAt);
    batch.waiting.clear();
    this.forgetIfDone(id, batch);
  }

  private forgetIfDone(id: string, batch: Sent): void {
    if (batch.waiting.size > 0) return;
    this.sent.delete(id);
    for (const timer of batch.timers) this.timers.clear(timer);
  }

  private fail(waiter: Waiter, failure: TransportFailure, startedAt: number): void {
    // Counted here; the operator is told once per region and change by CheckPath's region watch.
    this.onFailure(failure, waiter.request);
    waiter.resolve(
      unknownResult(waiter.request, failureMessage(failure, waiter.request.region), COORDINATOR_AGENT_ID, startedAt),
    );
  }
}
