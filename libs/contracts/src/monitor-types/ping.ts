import {
  classifyHost,
  HOST_PART,
  hostLiteral,
  schemeProblem,
  targetProblem,
  type HostPort,
  type TargetParse,
} from '../targets.js';
import { targetSchema, urlOnlyMonitorType, type UrlOnlySettings } from './definition.js';

/** The `ping` monitor type (docs/decisions/0004-monitors.md): ICMP echo to `ping://<host-or-ip>`. */

const PING_PATTERN = new RegExp(String.raw`^ping://${HOST_PART}$`, 'i');

/** `ping://<host-or-ip>`, nothing else. */
export function parsePingUrl(value: string): TargetParse<HostPort> {
  const raw = schemeProblem(value, 'ping');
  if (raw) return targetProblem(raw);
  const match = PING_PATTERN.exec(value);
  if (!match) return targetProblem('must have the form ping://<host-or-ip>');
  return classifyHost(match[1] ?? '');
}

export const pingType = urlOnlyMonitorType(
  parsePingUrl,
  hostLiteral,
  targetSchema('ping', '`ping://<host-or-ip>` (ICMP echo); host a name, IPv4 or bracketed IPv6.'),
);

/** Stored settings: the inner object of the API's `settings.ping`. */
export type PingSettings = UrlOnlySettings;

export const PingSettingsDto = pingType.dto;
export type PingSettingsDto = InstanceType<typeof PingSettingsDto>;
