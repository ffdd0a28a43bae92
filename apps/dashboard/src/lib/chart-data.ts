/** A region's series for the chart: values per time, null where the region has none. */
export interface ChartSeries {
  label: string;
  values: (number | null)[];
}

export interface Check {
  id: string;
  region: string;
  status: 'up' | 'down' | 'unknown' | 'blocked';
  response_time_ms: number | null;
  timings: {
    dns_ms: number | null;
    connect_ms: number | null;
    tls_ms: number | null;
    first_byte_ms: number | null;
    total_ms: number | null;
  } | null;
  http_status: number | null;
  error: string | null;
  phase: string | null;
  checked_at: number;
  checker_ip: string | null;
}

/** Response time per region (the recent checks the API gives, oldest first), one series a region. */
export function chartData(checks: readonly Check[], since: number): { x: number[]; series: ChartSeries[] } {
  const kept = checks.filter((c) => c.checked_at >= since).sort((a, b) => a.checked_at - b.checked_at);
  const regions = [...new Set(kept.map((c) => c.region))].sort();
  const x = [...new Set(kept.map((c) => c.checked_at))];
  const index = new Map(x.map((t, i) => [t, i]));
  const series = regions.map((region) => {
    const values: (number | null)[] = x.map(() => null);
    for (const c of kept)
      if (c.region === region && c.status === 'up') values[index.get(c.checked_at)!] = c.response_time_ms;
    return { label: region, values };
  });
  return { x, series };
}
