import { Global, Module, type DynamicModule } from '@nestjs/common';
import { CLOCK, createRegistry, type Clock } from '#runtime';
import { CoordinatorConfig } from './config.js';

/** The process's Prometheus registry: every feature adds its metrics to it; /metrics serves it. */
export const METRICS_REGISTRY = Symbol('METRICS_REGISTRY');

/** Process-wide values every feature may inject: the validated config, the clock, the metrics registry. */
@Global()
@Module({})
export class CoreModule {
  static forRoot(config: CoordinatorConfig, clock: Clock): DynamicModule {
    return {
      module: CoreModule,
      providers: [
        { provide: CoordinatorConfig, useValue: config },
        { provide: CLOCK, useValue: clock },
        { provide: METRICS_REGISTRY, useFactory: () => createRegistry() },
      ],
      exports: [CoordinatorConfig, CLOCK, METRICS_REGISTRY],
    };
  }
}
