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

/** A duration in seconds, the two largest units: `45 s`, `3 min 20 s`, `2 h 5 min`, `3 d 4 h`. */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const units: [string, number][] = [
    ['d', 86400],
    ['h', 3600],
    ['min', 60],
    ['s', 1],
  ];
  const parts: string[] = [];
  let rest = s;
  for (const [name, size] of units) {
    const amount = Math.floor(rest / size);
    if (amount > 0 || (parts.length > 0 && parts.length < 2)) {
      if (amount > 0) parts.push(`${amount} ${name}`);
      rest -= amount * size;
    }
    if (parts.length === 2) break;
  }
  return parts.length === 0 ? '0 s' : parts.join(' ');
}

/** `5 min ago` from two Unix-second times. */
export function ago(unixSeconds: number, nowSeconds: number): string {
  const diff = nowSeconds - unixSeconds;
  if (diff < 5) return 'just now';
  return `${duration(diff).split(' ').slice(0, 2).join(' ')} ago`;
}
