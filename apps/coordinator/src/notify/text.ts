/**
 * Untrusted text (monitor names, error strings) on its way into other formats. Each format
 * escapes its own way; these are the shared pieces.
 */

/** Cuts to at most `max` code points, ending with "…" when cut. */
export function truncate(text: string, max: number): string {
  const points = Array.from(text);
  return points.length <= max ? text : `${points.slice(0, Math.max(0, max - 1)).join('')}…`;
}

/** One line: CR, LF and other controls become spaces (headers, subjects, titles). */
export function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim();
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Slack mrkdwn: only &, < and > are special. */
export function escapeSlack(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Markdown (incident.io descriptions, Discord): backslash-escape the punctuation Markdown reads. */
export function escapeMarkdown(text: string): string {
  return text.replace(/([\\`*_{}[\]()#+\-.!|>~<@])/g, '\\$1');
}

/** "12 min", "3 h 5 min", "45 s". */
export function humanDuration(seconds: number): string {
  if (seconds < 60) return `${Math.max(0, Math.round(seconds))} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  if (hours < 48) return rest === 0 ? `${hours} h` : `${hours} h ${rest} min`;
  return `${Math.round(hours / 24)} d`;
}

/** ISO 8601 UTC without milliseconds, from Unix seconds. */
export function isoUtc(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** A short headline for an event: "API (prod) is DOWN", "… is still DOWN", "… is UP again", … */
export function headline(event: { event: string; monitor: { name: string } }): string {
  const name = oneLine(event.monitor.name);
  switch (event.event) {
    case 'monitor.down':
      return `${name} is DOWN`;
    case 'monitor.down.reminder':
      return `${name} is still DOWN`;
    case 'monitor.up':
      return `${name} is UP again`;
    case 'certificate.expiring':
      return `${name}: TLS certificate expires soon`;
    default:
      return `Test notification from Picket`;
  }
}

/** An outage's opening message or one of its reminders: both tell that the monitor is down. */
export function isDownEvent(event: string): boolean {
  return event === 'monitor.down' || event === 'monitor.down.reminder';
}

/** "DOWN" or, on a reminder, "STILL DOWN": the first word of one-line messages. */
export function downWord(event: string): string {
  return event === 'monitor.down.reminder' ? 'STILL DOWN' : 'DOWN';
}
