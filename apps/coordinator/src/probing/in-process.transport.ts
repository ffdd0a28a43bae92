import { isRegionId, unknownResult, type ProbeRequest, type ProbeResult } from '#contracts';
import type { ProbeRuntime } from '#probes';
import type { Clock } from '#runtime';
import { COORDINATOR_AGENT_ID } from './nats.transport.js';
import type { ProbeTransport } from './probe-transport.js';

/**
 * Embedded mode (no NATS_URL): the agent's own ProbeRuntime, in this process, serves every
 * region, so both modes check targets with the same code.
 */
export class InProcessTransport implements ProbeTransport {
  readonly kind = 'embedded' as const;

  constructor(
    private readonly runtime: ProbeRuntime,
    private readonly clock: Clock,
    private readonly drainMs: number,
    private readonly release: () => void = () => undefined,
  ) {}

  request(request: ProbeRequest): Promise<ProbeResult> {
    // Only agents enrolled for a private region run its checks (docs/decisions/0030-private-regions.md).
    if (!isRegionId(request.region)) {
      const error = `no agent serves region ${request.region}`;
      return Promise.resolve(unknownResult(request, error, COORDINATOR_AGENT_ID, this.clock.now()));
    }
    return this.runtime.execute(request);
  }

  async close(): Promise<void> {
    this.release();
    await this.runtime.stop(this.drainMs);
  }
}
