import { connect, type Msg, type NatsConnection } from '@nats-io/transport-node';
import {
  batchElements,
  fromWireRequest,
  PROBE_QUEUE_GROUP,
  subjectsFor,
  WireProbeRequestDto,
  type AgentHeartbeat,
  type ProbeRequest,
  type ProbeResult,
  type RegionId,
} from '#contracts';
import { checkInput } from '#validation';
import { runProbeBatch } from '../libs/probes/src/probe-batch.js';

/**
 * BENCH ONLY — never part of the product (apps/ never imports bench/). A stand-in for an agent
 * that speaks the agent's NATS protocol (the same subjects, queue group, wire DTOs and batch
 * reply coalescing as apps/agent: ProbeController, runProbeBatch) but probes nothing: each
 * request is answered with a synthetic UP result after a delay drawn from a lognormal
 * distribution (median FAKE_LATENCY_MS, σ FAKE_LATENCY_SIGMA), or DOWN for the monitors the
 * bench has named on `<prefix>.bench.down`. It sends no packet anywhere but to NATS, so the
 * cluster benchmark measures coordinators, PostgreSQL and NATS, not targets.
 *
 * Run as a child process of bench/cluster.ts: `node dist/bench/fake-agent.js` with FAKE_AGENT_ID,
 * FAKE_REGIONS (comma-separated), NATS_URL, NATS_SUBJECT_PREFIX.
 */

export interface FakeAgentStats {
  agent_id: string;
  singles: number;
  batches: number;
  checks: number;
  replies: number;
  invalid: number;
}

/** `<prefix>.bench.down`: `{ "monitors": [id, …] }` turns those monitors' results DOWN from now on. */
export function downSubject(prefix: string): string {
  return `${prefix}.bench.down`;
}

/** `<prefix>.bench.stats.<agent>`: a request answered with the agent's FakeAgentStats. */
export function statsSubject(prefix: string, agentId: string): string {
  return `${prefix}.bench.stats.${agentId}`;
}

async function main(): Promise<void> {
  const agentId = process.env.FAKE_AGENT_ID ?? `fake-${process.pid}`;
  const regions = (process.env.FAKE_REGIONS ?? 'us-east-1').split(',') as RegionId[];
  const prefix = process.env.NATS_SUBJECT_PREFIX ?? 'picket';
  const median = Number(process.env.FAKE_LATENCY_MS ?? 80);
  const sigma = Number(process.env.FAKE_LATENCY_SIGMA ?? 0.5);
  const subjects = subjectsFor(prefix);
  const nc: NatsConnection = await connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' });
  const down = new Set<string>();
  const stats: FakeAgentStats = { agent_id: agentId, singles: 0, batches: 0, checks: 0, replies: 0, invalid: 0 };
  let inFlight = 0;

  /** Lognormal: median × e^(σ·N(0,1)) (Box–Muller). */
  const latency = () => {
    const normal = Math.sqrt(-2 * Math.log(1 - Math.random())) * Math.cos(2 * Math.PI * Math.random());
    return Math.min(Math.round(median * Math.exp(sigma * normal)), 30_000);
  };
  const execute = (request: ProbeRequest): Promise<ProbeResult> => {
    const startedAt = Date.now();
    const ms = Math.min(latency(), request.timeout_ms);
    inFlight++;
    stats.checks++;
    return new Promise((resolve) =>
      setTimeout(() => {
        inFlight--;
        const isDown = down.has(request.monitor_id);
        resolve({
          check_id: request.check_id,
          monitor_id: request.monitor_id,
          region: request.region,
          scheduled_at: request.scheduled_at,
          status: isDown ? 'down' : 'up',
          phase: isDown ? 'connect' : null,
          error: isDown ? 'connection refused (bench fake agent)' : null,
          response_time_ms: ms,
          timings: { connect_ms: Math.round(ms / 2), total_ms: ms },
          http_status: null,
          cert_not_after: null,
          agent_id: agentId,
          checker_ip: '127.0.0.1',
          started_at: startedAt,
        });
      }, ms),
    );
  };
  const valid = (payload: unknown): ProbeRequest | null => {
    const { value } = checkInput(WireProbeRequestDto, payload);
    const request = value ? fromWireRequest(value) : null;
    if (!request) stats.invalid++;
    return request;
  };
  const parse = (msg: Msg): unknown => {
    try {
      return msg.json();
    } catch {
      return undefined;
    }
  };

  for (const region of regions) {
    nc.subscribe(subjects.probe(region), {
      queue: PROBE_QUEUE_GROUP,
      callback: (error, msg) => {
        if (error || !msg.reply) return;
        stats.singles++;
        const request = valid(parse(msg));
        if (!request) return;
        void execute(request).then((result) => {
          stats.replies++;
          msg.respond(JSON.stringify(result));
        });
      },
    });
    nc.subscribe(subjects.probeBatch(region), {
      queue: PROBE_QUEUE_GROUP,
      callback: (error, msg) => {
        if (error || !msg.reply) return;
        stats.batches++;
        const { elements } = batchElements(parse(msg), 'checks');
        if (!elements) {
          stats.invalid++;
          return;
        }
        const requests = elements.map(valid).filter((r): r is ProbeRequest => r !== null);
        void runProbeBatch(execute, requests, (results) => {
          stats.replies++;
          msg.respond(JSON.stringify({ results }));
        });
      },
    });
  }
  nc.subscribe(downSubject(prefix), {
    callback: (error, msg) => {
      if (error) return;
      const body = parse(msg) as { monitors?: unknown } | undefined;
      if (Array.isArray(body?.monitors)) for (const id of body.monitors) down.add(String(id));
    },
  });
  nc.subscribe(statsSubject(prefix, agentId), {
    callback: (error, msg) => {
      if (!error) msg.respond(JSON.stringify(stats));
    },
  });
  const beat = () => {
    const heartbeat: AgentHeartbeat = {
      agent_id: agentId,
      version: 'bench-fake-agent',
      regions,
      ipv4: ['127.0.0.1'],
      ipv6: [],
      in_flight: inFlight,
      max_in_flight: 1_000_000,
      icmp: false,
      sent_at: Date.now(),
    };
    nc.publish(subjects.heartbeat, JSON.stringify(heartbeat));
  };
  beat();
  setInterval(beat, 5000);
  await nc.flush();
  process.stdout.write('ready\n');
  const stop = () => void nc.drain().finally(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

if (process.argv[1]?.endsWith('fake-agent.js')) {
  main().catch((error: unknown) => {
    process.stderr.write(`fake agent: ${String(error)}\n`);
    process.exit(1);
  });
}
