import { isPlainObject } from '#validation';
import { toWireRequest, type ProbeRequest, type ProbeResult } from './probe.js';

/**
 * The batched probe wire (docs/decisions/0034-batched-probe-traffic.md). A coordinator sends
 * `{ checks: [<wire request>, …] }` to a region's batch subject with a reply subject of its own;
 * the agent of the queue group that takes it answers on that reply subject as many times as it
 * likes, each time `{ results: [<result>, …] }`. Every element is validated on its own, by the
 * DTOs of the single-check wire (WireProbeRequestDto, ProbeResultDto): one bad element costs
 * that check, never the batch.
 */

/** Most checks in one batch message; also the most replies an agent may send to one batch. */
export const PROBE_BATCH_MAX_CHECKS = 100;

export interface ProbeBatchReply {
  results: ProbeResult[];
}

export function toWireBatch(requests: readonly ProbeRequest[]): { checks: Record<string, unknown>[] } {
  return { checks: requests.map(toWireRequest) };
}

/** The elements of a batch envelope (`checks` or `results`), or a reason it is not one. */
export function batchElements(
  payload: unknown,
  key: 'checks' | 'results',
): { elements: unknown[]; problem: null } | { elements: null; problem: string } {
  if (!isPlainObject(payload)) return { elements: null, problem: 'must be an object' };
  const elements = payload[key];
  if (!Array.isArray(elements)) return { elements: null, problem: `${key} must be an array` };
  if (elements.length === 0 || elements.length > PROBE_BATCH_MAX_CHECKS) {
    return { elements: null, problem: `${key} must have 1 to ${PROBE_BATCH_MAX_CHECKS} elements` };
  }
  return { elements, problem: null };
}
