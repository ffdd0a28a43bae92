import type { ProbeRequest, ProbeResult } from '#contracts';
import type { ProbeExecutor } from '#probes';
import type { ProbeTransport } from './probe-transport.js';

/**
 * Embedded mode (no NATS_URL): the coordinator's own executor serves every region, the same
 * executor an agent runs, so both modes check targets with the same code.
 */
export class InProcessTransport implements ProbeTransport {
  readonly kind = 'embedded' as const;

  constructor(
    private readonly executor: ProbeExecutor,
    private readonly drainMs: number,
    private readonly release: () => void = () => undefined,
  ) {}

  request(request: ProbeRequest): Promise<ProbeResult> {
    return this.executor.execute(request);
  }

  async close(): Promise<void> {
    await this.executor.drain(this.drainMs);
    this.release();
  }
}
