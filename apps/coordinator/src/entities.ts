import { AGENTS_ENTITIES } from './agents/agent.entity.js';
import { AUTH_ENTITIES } from './auth/api-key.entity.js';
import { CLUSTER_ENTITIES } from './cluster/cluster.entity.js';
import { CONTACTS_ENTITIES } from './contacts/contact.entity.js';
import { HISTORY_ENTITIES } from './history/check-result.entity.js';
import { INCIDENTS_ENTITIES } from './incidents/incident.entity.js';
import { MAINTENANCE_ENTITIES } from './maintenance/maintenance-window.entity.js';
import { MonitorContactEntity, MonitorEntity } from './monitors/monitor.entity.js';
import { NOTIFY_ENTITIES } from './notify/notification.entity.js';
import { REGIONS_ENTITIES } from './regions/private-region.entity.js';
import { RATE_LIMIT_ENTITIES } from './rate-limit/rate-limit.entity.js';
import { STATUS_PAGES_ENTITIES } from './status-pages/status-page.entity.js';
import { USERS_ENTITIES } from './sessions/session.entity.js';

/**
 * Every table of the coordinator: each feature's entities, assembled here by the composition
 * root. database/ imports no feature; the server and CLI modules hand this list to
 * DatabaseModule.forRoot, and specs and benches to openDataSource.
 */
export const ENTITIES = [
  ...AUTH_ENTITIES,
  ...CONTACTS_ENTITIES,
  MonitorEntity, // monitors/ declares no list of its own: its two entities are named here
  MonitorContactEntity,
  ...HISTORY_ENTITIES,
  ...INCIDENTS_ENTITIES,
  ...NOTIFY_ENTITIES,
  ...CLUSTER_ENTITIES,
  ...AGENTS_ENTITIES,
  ...RATE_LIMIT_ENTITIES,
  ...STATUS_PAGES_ENTITIES,
  ...USERS_ENTITIES,
  ...MAINTENANCE_ENTITIES,
  ...REGIONS_ENTITIES,
];
