import {
  probeSubjectOf,
  ProbeResultDto,
  subjectsFor,
  type Subjects,
  toWireRequest,
  unknownResult,
  type ProbeRequest,
  type ProbeResult,
} from '#contracts';
import type { Clock, NatsLink } from '#runtime';
import { checkInput } from '#validation';
import { REPLY_GRACE_MS, type ProbeTransport, type TransportFailure } from './probe-transport.js';

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

/** The error of an UNKNOWN the coordinator records for `failure` of a check of `region`. */
export function failureMessage(failure: TransportFailure, region: string): string {
  return MESSAGES[failure](region);
}

/**
 * Core NATS request/reply to `picket.probe.<region>` (a private region's:
 * `picket.private.<account>.<region>.probe`), answered by one agent of the region's queue group. Nothing is persisted on NATS: a lost request or reply is UNKNOWN at once, and so
 * is a request while the link is not connected (the client would hold it until its timeout).
 */
export class NatsTransport implements ProbeTransport {
  readonly kind = 'nats' as const;

  private readonly subjects: Subjects;

  constructor(
    private readonly link: NatsLink,
    subjectPrefix: string,
    private readonly clock: Clock,
    private readonly onFailure: (failure: TransportFailure, request: ProbeRequest) => void = () => undefined,
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
    const subject = probeSubjectOf(this.subjects, request);
    if (!subject) {
      this.onFailure('no_responders', request);
      return unknownResult(request, MESSAGES.no_responders(request.region), COORDINATOR_AGENT_ID, startedAt);
    }
    try {
      const reply = await nats.request(subject, JSON.stringify(toWireRequest(request)), {
        timeout: request.timeout_ms + REPLY_GRACE_MS,
      });
      const { value } = checkInput(ProbeResultDto, JSON.parse(reply.string()));
      if (value && answers(request, value)) {
        return { ...value, timings: { ...value.timings } };
      }
      failure = 'invalid_reply';
    } catch (error) {
      failure = error instanceof SyntaxError ? 'invalid_reply' : failureOf(error);
    }
    // Counted here; the operator is told once per region and change by CheckPath's region watch.
    this.onFailure(failure, request);
    return unknownResult(request, MESSAGES[failure](request.region), COORDINATOR_AGENT_ID, startedAt);
  }

  /**
   * Nothing of its own to close: the link is shared (heartbeats, replica notices) and drained
   * once, last, by MonitorBus at application shutdown, after the checks in flight had their grace.
   */
  async close(): Promise<void> {}
}

/** A reply answers the request it names, field for field (what a stored result is keyed by). */
export function answers(request: ProbeRequest, result: ProbeResult): boolean {
  return (
    result.check_id === request.check_id &&
    result.monitor_id === request.monitor_id &&
    result.region === request.region &&
    result.scheduled_at === request.scheduled_at
  );
}
