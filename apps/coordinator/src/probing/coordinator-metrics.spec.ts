import { describe, expect, it } from '@jest/globals';
import { createRegistry } from '#runtime';
import { CoordinatorMetrics } from './coordinator-metrics.js';

describe('CoordinatorMetrics', () => {
  it('reads the results waiting to be stored and the partitions held at each scrape', async () => {
    const metrics = new CoordinatorMetrics(createRegistry());
    let pending = 3;
    metrics.trackResultsPending(() => pending);
    metrics.trackPartitions(() => 64);
    expect(await metrics.registry.metrics()).toMatch(/^picket_results_pending 3$/m);
    pending = 0;
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/^picket_results_pending 0$/m);
    expect(text).toMatch(/^picket_partitions_held 64$/m);
  });
});
