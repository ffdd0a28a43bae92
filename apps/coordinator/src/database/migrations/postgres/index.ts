import { InitialSchema1763800000000 } from './1763800000000-initial-schema.js';
import { CheckHistory1763900000000 } from './1763900000000-check-history.js';
import { Notifications1764000000000 } from './1764000000000-notifications.js';
import { RateLimits1764100000000 } from './1764100000000-rate-limits.js';
import { Agents1764300000000 } from './1764300000000-agents.js';
import { Cluster1764400000000 } from './1764400000000-cluster.js';
import { StatusPages1764500000000 } from './1764500000000-status-pages.js';
import { RollupHistograms1764600000000 } from './1764600000000-rollup-histograms.js';
import { MonitorListIndexes1764700000000 } from './1764700000000-monitor-list-indexes.js';
import { CheckResultKey1764800000000 } from './1764800000000-check-result-key.js';
import { MonitorLastChecked1764900000000 } from './1764900000000-monitor-last-checked.js';
import { CoordinatorMode1765000000000 } from './1765000000000-coordinator-mode.js';
import { AbuseLimits1765200000000 } from './1765200000000-abuse-limits.js';
import { DeliveryLogContact1765400000000 } from './1765400000000-delivery-log-contact.js';
import { UsersAndSessions1765600000000 } from './1765600000000-users-and-sessions.js';
import { SealedSecrets1765620000000 } from './1765620000000-sealed-secrets.js';
import { RequestHeadersRepair1765650000000 } from './1765650000000-request-headers-repair.js';
import { MaintenanceWindows1765700000000 } from './1765700000000-maintenance-windows.js';
import { HeartbeatMonitors1765800000000 } from './1765800000000-heartbeat-monitors.js';
import { NotificationRules1765900000000 } from './1765900000000-notification-rules.js';
import { PrivateRegions1765950000000 } from './1765950000000-private-regions.js';
import { AgentEnrollment1766000000000 } from './1766000000000-agent-enrollment.js';
import { PartitionedCheckHistory1766100000000 } from './1766100000000-partitioned-check-history.js';
import { MonitorCounts1766200000000 } from './1766200000000-monitor-counts.js';
import { BalancedPartitions1766300000000 } from './1766300000000-balanced-partitions.js';
import { UnloggedRateLimits1766400000000 } from './1766400000000-unlogged-rate-limits.js';

/** Reviewed PostgreSQL migrations, oldest first; the same list in ../sqlite (docs/decisions/0015-two-migration-sets.md). */
export const POSTGRES_MIGRATIONS = [
  InitialSchema1763800000000,
  CheckHistory1763900000000,
  Notifications1764000000000,
  RateLimits1764100000000,
  Agents1764300000000,
  Cluster1764400000000,
  StatusPages1764500000000,
  RollupHistograms1764600000000,
  MonitorListIndexes1764700000000,
  CheckResultKey1764800000000,
  MonitorLastChecked1764900000000,
  CoordinatorMode1765000000000,
  AbuseLimits1765200000000,
  DeliveryLogContact1765400000000,
  UsersAndSessions1765600000000,
  SealedSecrets1765620000000,
  RequestHeadersRepair1765650000000,
  MaintenanceWindows1765700000000,
  HeartbeatMonitors1765800000000,
  NotificationRules1765900000000,
  PrivateRegions1765950000000,
  AgentEnrollment1766000000000,
  PartitionedCheckHistory1766100000000,
  MonitorCounts1766200000000,
  BalancedPartitions1766300000000,
  UnloggedRateLimits1766400000000,
];
