import type { RegionId } from '#contracts';
import type { IncidentEntity, RegionEvidence } from './incident.entity.js';

/** An incident as the API shows it (docs/decisions/0007-incidents.md). */
export interface IncidentJson {
  id: string;
  monitor_id: string;
  monitor_name: string;
  is_resolved: boolean;
  started_at: number;
  resolved_at: number | null;
  /** Seconds; up to now while the incident is open. */
  duration: number;
  reason: string;
  user_comment: string;
  check_results: Partial<Record<RegionId, RegionEvidence>>;
}

export function toIncidentJson(incident: IncidentEntity, nowSeconds: number): IncidentJson {
  return {
    id: incident.id,
    monitor_id: incident.monitorId,
    monitor_name: incident.monitorName,
    is_resolved: incident.resolvedAt !== null,
    started_at: incident.startedAt,
    resolved_at: incident.resolvedAt,
    duration: Math.max(0, (incident.resolvedAt ?? nowSeconds) - incident.startedAt),
    reason: incident.reason,
    user_comment: incident.userComment,
    check_results: incident.checkResults,
  };
}
