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

/** The `tcp` monitor type (docs/decisions/0004-monitors.md): a TCP connection to `tcp://<host>:<port>`. */

const TCP_PATTERN = new RegExp(String.raw`^tcp://${HOST_PART}:(\d{1,5})$`, 'i');

/** `tcp://<host>:<port>`, port 1..65535, nothing else. */
export function parseTcpUrl(value: string): TargetParse<HostPort> {
  const raw = schemeProblem(value, 'tcp');
  if (raw) return targetProblem(raw);
  const match = TCP_PATTERN.exec(value);
  if (!match) return targetProblem('must have the form tcp://<host>:<port>');
  const port = Number(match[2]);
  if (port < 1 || port > 65535) return targetProblem('must have a port between 1 and 65535');
  const host = classifyHost(match[1] ?? '');
  return host.ok ? { ok: true, value: { ...host.value, port } } : host;
}

export const tcpType = urlOnlyMonitorType(
  parseTcpUrl,
  hostLiteral,
  targetSchema('tcp', '`tcp://<host>:<port>`, port 1..65535; host a name, IPv4 or bracketed IPv6.'),
);

/** Stored settings: the inner object of the API's `settings.tcp`. */
export type TcpSettings = UrlOnlySettings;

export const TcpSettingsDto = tcpType.dto;
export type TcpSettingsDto = InstanceType<typeof TcpSettingsDto>;
