import { randomBytes } from 'node:crypto';
import type { Prober, ProberTable } from '#probes';
import {
  checkIdOf,
  PROBED_TYPES,
  type ProbedType,
  type ProbeRequest,
  type RegionId,
  type SettingsByType,
} from '#contracts';

export interface ProbeSlot {
  /** Default: a fresh random id. */
  monitorId?: string;
  /** Default: now. */
  scheduledAt?: number;
  /** Default: eu-west-1. */
  region?: RegionId;
  /** Default: 5000. */
  timeoutMs?: number;
}

/**
 * A probe request as a coordinator sends one (tests and benchmarks): the check id follows
 * from the monitor, the slot and the region.
 */
export function probeRequest<T extends ProbedType>(
  type: T,
  settings: SettingsByType[T],
  slot: ProbeSlot = {},
): ProbeRequest<T> {
  const monitorId = slot.monitorId ?? randomBytes(12).toString('hex');
  const scheduledAt = slot.scheduledAt ?? Date.now();
  const region = slot.region ?? 'eu-west-1';
  return {
    check_id: checkIdOf(monitorId, scheduledAt, region),
    monitor_id: monitorId,
    region,
    scheduled_at: scheduledAt,
    type,
    settings,
    timeout_ms: slot.timeoutMs ?? 5000,
  };
}

/**
 * A prober table in which only `type` has a prober (the one under test); every other type's
 * prober throws, so a test that reaches it fails.
 */
export function tableWithOnly<K extends ProbedType>(type: K, prober: Prober<K>): ProberTable {
  const unused = (): Promise<never> => Promise.reject(new Error('not under test'));
  const table = Object.fromEntries(PROBED_TYPES.map((t) => [t, unused]));
  return { ...table, [type]: prober } as unknown as ProberTable;
}
