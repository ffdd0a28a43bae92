import { useQuery } from '@tanstack/react-query';
import { useMemo, useState, type ReactNode } from 'react';
import { loadAllMonitors } from '../lib/queries.ts';

/** Monitors to tick, with a search over their names (the ticked ones stay in view); at most 200 shown. */
export function MonitorPicker({
  legend,
  chosen,
  onChange,
  error,
  disabled = false,
}: {
  legend: ReactNode;
  chosen: string[];
  onChange: (chosen: string[]) => void;
  error: string | undefined;
  disabled?: boolean;
}) {
  const monitors = useQuery({ queryKey: ['monitors', 'all'], queryFn: () => loadAllMonitors() });
  const [filter, setFilter] = useState('');
  const choices = useMemo(() => {
    const words = filter.toLowerCase();
    const all = monitors.data ?? [];
    return all.filter((m) => chosen.includes(m.id) || m.name.toLowerCase().includes(words)).slice(0, 200);
  }, [monitors.data, filter, chosen]);
  return (
    <fieldset className={error ? 'has-error' : ''} disabled={disabled}>
      <legend>{legend}</legend>
      <label className="field">
        <span className="sr-only">Find a monitor</span>
        <input type="search" placeholder="Find a monitor" value={filter} onChange={(e) => setFilter(e.target.value)} />
      </label>
      <div className="choices grid scroll">
        {choices.map((m) => (
          <label key={m.id} className="choice">
            <input
              type="checkbox"
              checked={chosen.includes(m.id)}
              onChange={(e) => onChange(e.target.checked ? [...chosen, m.id] : chosen.filter((x) => x !== m.id))}
            />
            {m.name}
          </label>
        ))}
      </div>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </fieldset>
  );
}
