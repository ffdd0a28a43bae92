/**
 * Times are shown in the browser's time zone, with the UTC time on hover. The zone is a
 * parameter so that tests (and a future preference) can fix it.
 */

export function localTime(unixSeconds: number, timeZone?: string, locale = 'en-GB'): string {
  return new Intl.DateTimeFormat(locale, {
    timeZone,
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hour12: false,
  }).format(new Date(unixSeconds * 1000));
}

/** `2026-11-25 17:08:43 UTC`: what the title (hover) says. */
export function utcTime(unixSeconds: number): string {
  return `${new Date(unixSeconds * 1000).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** A duration in seconds, the largest unit and the next one when not zero: `45 s`, `3 min 20 s`, `2 h 5 min`, `1 d`. */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const units: [string, number][] = [
    ['d', 86400],
    ['h', 3600],
    ['min', 60],
    ['s', 1],
  ];
  const first = units.findIndex(([, size]) => s >= size);
  if (first === -1) return '0 s';
  const [name, size] = units[first]!;
  const whole = Math.floor(s / size);
  const text = `${whole} ${name}`;
  const next = units[first + 1];
  if (next === undefined) return text;
  const rest = Math.floor((s - whole * size) / next[1]);
  return rest === 0 ? text : `${text} ${rest} ${next[0]}`;
}

/** `5 min ago` from two Unix-second times. */
export function ago(unixSeconds: number, nowSeconds: number): string {
  const diff = nowSeconds - unixSeconds;
  if (diff < 5) return 'just now';
  return `${duration(diff).split(' ').slice(0, 2).join(' ')} ago`;
}

/** The parts of a Unix time as `Intl.DateTimeFormat` formats them with `options` (`{hour: '14', minute: '05', …}`). */
export function timeParts(
  unixSeconds: number,
  options: Intl.DateTimeFormatOptions,
  locale = 'en-GB',
): Partial<Record<Intl.DateTimeFormatPartTypes, string>> {
  return Object.fromEntries(
    new Intl.DateTimeFormat(locale, options).formatToParts(new Date(unixSeconds * 1000)).map((p) => [p.type, p.value]),
  );
}
