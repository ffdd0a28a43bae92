import type { ProbeRequest, ProbeResult } from '#contracts';
import type { ProbeRuntime } from '#probes';
import type { ProbeTransport } from './probe-transport.js';

/**
 * Embedded mode (no NATS_URL): the agent's own ProbeRuntime, in this process, serves every
 * region, so both modes check targets with the same code.
 */
export class InProcessTransport implements ProbeTransport {
  readonly kind = 'embedded' as const;

  constructor(
    private readonly runtime: ProbeRuntime,
    private readonly drainMs: number,
    private readonly release: () => void = () => undefined,
  ) {}

  request(request: ProbeRequest): Promise<ProbeResult> {
    return this.runtime.execute(request);
  }

  async close(): Promise<void> {
    this.release();
    await this.runtime.stop(this.drainMs);
  }
}
