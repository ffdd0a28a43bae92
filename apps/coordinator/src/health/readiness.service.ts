import { Injectable } from '@nestjs/common';
import { summarize, type PartReport, type ReadinessAnswer } from '#runtime';

/** One part of the coordinator that has a say in readiness. */
export interface ReadinessPart {
  readonly name: string;
  /** Whether a problem here makes the process not ready (503), or only degraded (200). */
  readonly required: boolean;
  /** Null when fine, otherwise the problem. Must be cheap and must not hang (bound it). */
  problem(): Promise<string | null> | string | null;
}

/**
 * What `GET /readyz` asks. Features register their part where they live (the database probe,
 * the NATS link, the outage buffers), so this service knows none of them. Shutting down is
 * its own part: marked first thing when the process begins to stop, so that load balancers
 * stop sending traffic while running checks drain.
 */
@Injectable()
export class Readiness {
  private readonly parts: ReadinessPart[] = [];
  private stopping = false;

  constructor() {
    this.register({
      name: 'shutdown',
      required: true,
      problem: () => (this.stopping ? 'shutting down' : null),
    });
  }

  register(part: ReadinessPart): void {
    this.parts.push(part);
  }

  markStopping(): void {
    this.stopping = true;
  }

  /** Whether the process has begun to stop (what takes long-lived work refuses new work then). */
  get isStopping(): boolean {
    return this.stopping;
  }

  async answer(): Promise<ReadinessAnswer> {
    const reports = await Promise.all(
      this.parts.map(async (part): Promise<PartReport> => {
        let problem: string | null;
        try {
          problem = await part.problem();
        } catch (error) {
          problem = `check failed: ${error instanceof Error ? error.message : String(error)}`;
        }
        return { name: part.name, required: part.required, problem };
      }),
    );
    return summarize(reports);
  }
}
