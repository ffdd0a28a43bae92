import { subjectsFor } from '#contracts';
import type { INestApplication } from '@nestjs/common';
import type { NatsLink } from '#runtime';
import { NatsLinkServer, type NatsRoute } from '#runtime/nats-server';
import { HEARTBEAT_PATTERN } from '../agents/heartbeat.controller.js';
import type { CoordinatorConfig } from '../config.js';
import { STATUS_CHANGED_PATTERN } from '../live/status-feed.controller.js';
import { HEARTBEAT_PING_PATTERN } from '../heartbeats/heartbeat-ping.controller.js';
import { ENROLL_PATTERN } from '../regions/enrollment.controller.js';
import { PRIVATE_HEARTBEAT_PATTERN } from '../regions/private-heartbeat.controller.js';
import { MONITOR_CHANGED_PATTERN } from './monitor-bus.controller.js';
import { NATS_LINK } from './nats-connection.js';

/**
 * What the coordinator's microservice (NatsLinkServer, NATS mode) takes from NATS: agents'
 * heartbeats, other replicas' monitor notices and heartbeat-monitor pings, and other replicas'
 * status changes (live streams), each for every replica (no queue group). Only the status
 * changes when CHECKS_ENABLED=false: such a coordinator schedules nothing but still serves
 * dashboards. Probe requests go out
 * on the raw client (NatsTransport; docs/decisions/0014-nats-and-nest-microservices.md).
 */
export function coordinatorRoutes(config: CoordinatorConfig): NatsRoute[] {
  const subjects = subjectsFor(config.NATS_SUBJECT_PREFIX);
  // Every replica serves live streams, also one that schedules nothing.
  const live: NatsRoute = { subject: subjects.statusChanged, pattern: STATUS_CHANGED_PATTERN };
  // Every replica answers GET /api/regions, whose `agents_online` counts private agents' heartbeats.
  const privateAgents: NatsRoute = { subject: subjects.privateHeartbeats, pattern: PRIVATE_HEARTBEAT_PATTERN };
  // With NATS_AUTH_DIR, one replica (any) answers each agent's enrollment request.
  const enrollment: NatsRoute[] = config.NATS_AUTH_DIR
    ? [{ subject: subjects.enroll, pattern: ENROLL_PATTERN, queue: COORDINATOR_QUEUE_GROUP }]
    : [];
  if (config.CHECKS_ENABLED === 'false') return [live, privateAgents, ...enrollment];
  return [
    privateAgents,
    ...enrollment,
    { subject: subjects.heartbeat, pattern: HEARTBEAT_PATTERN },
    { subject: subjects.monitorChanged, pattern: MONITOR_CHANGED_PATTERN },
    { subject: subjects.heartbeatPing, pattern: HEARTBEAT_PING_PATTERN },
    live,
  ];
}

/** The queue group of requests one coordinator replica answers. */
export const COORDINATOR_QUEUE_GROUP = 'picket-coordinators';

/** Connects the coordinator's microservice to `app` when it has NATS and something to take from it. */
export function connectNatsMicroservice(app: INestApplication, config: CoordinatorConfig): void {
  const link = app.get<NatsLink | null>(NATS_LINK);
  const routes = coordinatorRoutes(config);
  if (link && routes.length > 0) app.connectMicroservice({ strategy: new NatsLinkServer(link, routes) });
}
