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

  it('counts monitors by status once per scrape, and reports the unknown ones as stale from that count', async () => {
    const metrics = new CoordinatorMetrics(createRegistry());
    let reads = 0;
    let unknown = 2;
    metrics.trackMonitors(() => {
      reads++;
      return { pending: 0, up: 3, down: 1, unknown };
    });
    let text = await metrics.registry.metrics();
    expect(text).toMatch(/^picket_monitors\{status="unknown"\} 2$/m);
    expect(text).toMatch(/^picket_monitors_stale 2$/m);
    expect(reads).toBe(1);
    unknown = 0;
    text = await metrics.registry.metrics();
    expect(text).toMatch(/^picket_monitors_stale 0$/m);
    expect(reads).toBe(2);
  });

  it('has a series for every region in the region gauges, 0 where the reading has none', async () => {
    const metrics = new CoordinatorMetrics(createRegistry());
    metrics.trackAgents(() => ({ 'eu-west-1': 2 }));
    metrics.trackRegionMonitors(() => ({ 'sa-east-1': 5 }));
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/^picket_region_agents\{region="eu-west-1"\} 2$/m);
    expect(text).toMatch(/^picket_region_agents\{region="sa-east-1"\} 0$/m);
    expect(text).toMatch(/^picket_region_monitors\{region="sa-east-1"\} 5$/m);
    expect(text.match(/^picket_region_monitors\{/gm)).toHaveLength(15);
  });
});
