import { useEffect, useRef, useState } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

import type { ChartSeries } from '../lib/chart-data.ts';
import { localTime } from '../lib/time.ts';
import { timeLabels, TIME_STEPS } from '../lib/time-axis.ts';

const PALETTE = ['#2563eb', '#d97706', '#059669', '#db2777', '#7c3aed', '#0891b2', '#65a30d', '#dc2626'];

/** Changes when the colour theme does (the toggle, or the system's preference), so the chart redraws in its colours. */
function useThemeVersion(): number {
  const [version, setVersion] = useState(0);
  useEffect(() => {
    const bump = () => setVersion((v) => v + 1);
    const observer = new MutationObserver(bump);
    observer.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
    const query = matchMedia('(prefers-color-scheme: dark)');
    query.addEventListener('change', bump);
    return () => {
      observer.disconnect();
      query.removeEventListener('change', bump);
    };
  }, []);
  return version;
}

/** Response times over time (one line per series) with uPlot; x in Unix seconds, shown in the local zone. */
export function TimeChart({ x, series, label }: { x: number[]; series: ChartSeries[]; label: string }) {
  const holder = useRef<HTMLDivElement>(null);
  const theme = useThemeVersion();
  useEffect(() => {
    const element = holder.current;
    if (!element) return;
    const dark =
      matchMedia('(prefers-color-scheme: dark)').matches || document.documentElement.dataset.theme === 'dark';
    const light = document.documentElement.dataset.theme === 'light';
    const ink = dark && !light ? '#cbd5e1' : '#334155';
    const grid = dark && !light ? 'rgba(148,163,184,0.15)' : 'rgba(51,65,85,0.12)';
    const width = Math.max(280, element.clientWidth);
    const plot = new uPlot(
      {
        width,
        height: 260,
        scales: { x: { time: true } },
        axes: [
          {
            stroke: ink,
            grid: { stroke: grid },
            // Whole steps of a second or more, labelled as precisely as the step needs, in the local zone.
            incrs: TIME_STEPS,
            space: 70,
            values: (_u, ticks, _axis, _space, step) => timeLabels(ticks, step),
          },
          { stroke: ink, grid: { stroke: grid }, values: (_u, ticks) => ticks.map((t) => `${t} ms`), size: 60 },
        ],
        series: [
          { value: (_u: uPlot, v: number | null) => (v === null ? '–' : localTime(v)) },
          ...series.map((s, i) => ({
            label: s.label,
            stroke: PALETTE[i % PALETTE.length],
            width: 1.5,
            // Each region has values only at its own check times: join them across the others'.
            spanGaps: true,
            points: { show: true, size: 4 },
            value: (_u: uPlot, v: number | null) => (v === null ? '–' : `${Math.round(v)} ms`),
          })),
        ],
      },
      [x, ...series.map((s) => s.values)],
      element,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(280, element.clientWidth), height: 260 }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [x, series, theme]);
  return <div className="chart" ref={holder} role="img" aria-label={label} />;
}
