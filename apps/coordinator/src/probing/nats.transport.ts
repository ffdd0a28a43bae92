import {
  ProbeResultDto,
  subjectsFor,
  type Subjects,
  toWireRequest,
  unknownResult,
  type ProbeRequest,
  type ProbeResult,
  type RegionId,
} from '#contracts';
import type { Clock, NatsLink } from '#runtime';
import { checkInput } from '#validation';
import { REPLY_GRACE_MS, type ProbeTransport, type TransportFailure } from './probe-transport.js';

/** Where the transport tells the operator that a region lost (or regained) all its agents. */
export interface RegionLog {
  warn(message: string): void;
  log(message: string): void;
}

/** The agent id on UNKNOWN results the coordinator itself produces. */
export const COORDINATOR_AGENT_ID = 'coordinator';

function failureOf(error: unknown): TransportFailure {
  const e = error as { name?: string; message?: string; cause?: unknown; isNoResponders?: () => boolean } | null;
  if (e?.isNoResponders?.() || (e?.cause as { name?: string } | undefined)?.name === 'NoRespondersError') {
    return 'no_responders';
  }
  if (e?.name === 'TimeoutError' || (e?.cause as { name?: string } | undefined)?.name === 'TimeoutError')
    return 'timeout';
  return 'transport';
}

const MESSAGES: { readonly [K in TransportFailure]: (region: string) => string } = {
  no_responders: (region) => `no agent serves region ${region}`,
  timeout: (region) => `no answer from the agents of region ${region} in time`,
  transport: () => 'the message bus (NATS) is unavailable',
  invalid_reply: (region) => `an agent of region ${region} sent an invalid reply`,
};

/**
 * Core NATS request/reply to `picket.probe.<region>`, answered by one agent of the region's
 * queue group. Nothing is persisted on NATS: a lost request or reply is UNKNOWN at once, and so
 * is a request while the link is not connected (the client would hold it until its timeout).
 */
export class NatsTransport implements ProbeTransport {
  readonly kind = 'nats' as const;

  private readonly subjects: Subjects;
  /** Regions whose last request found no agent at all (told to the operator once, until one answers). */
  private readonly unserved = new Set<RegionId>();

  constructor(
    private readonly link: NatsLink,
    subjectPrefix: string,
    private readonly clock: Clock,
    private readonly onFailure: (failure: TransportFailure, request: ProbeRequest) => void = () => undefined,
    private readonly log: RegionLog = { warn: () => undefined, log: () => undefined },
  ) {
    this.subjects = subjectsFor(subjectPrefix);
  }

  async request(request: ProbeRequest): Promise<ProbeResult> {
    const startedAt = this.clock.now();
    let failure: TransportFailure;
    const nats = this.link.connected ? this.link.connection : null;
    if (!nats) {
      this.onFailure('transport', request);
      return unknownResult(request, MESSAGES.transport(request.region), COORDINATOR_AGENT_ID, startedAt);
    }
    try {
      const reply = await nats.request(this.subjects.probe(request.region), JSON.stringify(toWireRequest(request)), {
        timeout: request.timeout_ms + REPLY_GRACE_MS,
      });
      const { value } = checkInput(ProbeResultDto, JSON.parse(reply.string()));
      if (value && answers(request, value)) {
        if (this.unserved.delete(request.region)) this.log.log(`region ${request.region} is served by an agent again`);
        return { ...value, timings: { ...value.timings } };
      }
      failure = 'invalid_reply';
    } catch (error) {
      failure = error instanceof SyntaxError ? 'invalid_reply' : failureOf(error);
    }
    this.onFailure(failure, request);
    if (failure === 'no_responders' && !this.unserved.has(request.region)) {
      this.unserved.add(request.region);
      this.log.warn(
        `no agent serves region ${request.region}: its checks are UNKNOWN (never DOWN) until one does ` +
          `(metric picket_unknown_results_total{reason="no_responders"})`,
      );
    }
    return unknownResult(request, MESSAGES[failure](request.region), COORDINATOR_AGENT_ID, startedAt);
  }

  /** Drains the link (replies in flight still arrive), then closes it. */
  async close(): Promise<void> {
    await this.link.drain();
  }
}

/** A reply answers the request it names, field for field (what a stored result is keyed by). */
function answers(request: ProbeRequest, result: ProbeResult): boolean {
  return (
    result.check_id === request.check_id &&
    result.monitor_id === request.monitor_id &&
    result.region === request.region &&
    result.scheduled_at === request.scheduled_at
  );
}
