import { Global, Injectable, Module, type OnModuleDestroy } from '@nestjs/common';
import { DatabaseProbe } from './database-probe.js';
import { HealthController } from './health.controller.js';
import { Readiness } from './readiness.service.js';

/**
 * Marks the process as stopping. Provided by the ROOT module (CoordinatorModule): Nest calls
 * onModuleDestroy on the modules nearest the root first, so this runs before probing drains
 * its checks and /readyz turns 503 for the whole shutdown.
 */
@Injectable()
export class StoppingMarker implements OnModuleDestroy {
  constructor(private readonly readiness: Readiness) {}
  onModuleDestroy(): void {
    this.readiness.markStopping();
  }
}

/** GET /healthz and /readyz; `Readiness` is global so that every feature can register its part. */
@Global()
@Module({
  controllers: [HealthController],
  providers: [Readiness, DatabaseProbe],
  exports: [Readiness],
})
export class HealthModule {}
