import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useState, type FormEvent, type ReactNode } from 'react';
import { ErrorNote, Field, Loading, ReadOnlyNote, TableScroll, Time } from '../components/common.tsx';
import { FormActions } from '../components/form-actions.tsx';
import { MonitorPicker } from '../components/monitor-picker.tsx';
import { ApiError, api, query } from '../lib/api.ts';
import { fieldErrors } from '../lib/field-errors.ts';
import {
  browserZone,
  describeRrule,
  displayZone,
  occurrenceText,
  PREVIEW_SHOWN,
  repeatOf,
  rruleOf,
  sortWindows,
  unixOfWallTime,
  wallTime,
  WEEKDAYS,
  zonedDateTime,
  type MaintenanceWindow,
  type Occurrence,
  type Repeat,
  type Weekday,
} from '../lib/maintenance.ts';
import type { Pagination } from '../lib/monitors.ts';
import { Link, navigate } from '../lib/router.tsx';
import { useCan } from '../lib/session.ts';
import { duration, utcTime } from '../lib/time.ts';

/** Every window of the account (the API pages by at most 100). */
async function loadAllWindows(): Promise<MaintenanceWindow[]> {
  const all: MaintenanceWindow[] = [];
  for (let page = 1; ; page += 1) {
    const got = await api.get<{ data: { maintenance_windows: MaintenanceWindow[]; pagination: Pagination } }>(
      `/api/maintenance_windows${query({ page, per_page: 100 })}`,
    );
    all.push(...got.data.maintenance_windows);
    if (page >= got.data.pagination.total_pages) return all;
  }
}

/**
 * The account's windows, refreshed every minute (a window starts or ends on its own schedule).
 * Null while they load, and for a session that may not read them.
 */
export function useMaintenanceWindows() {
  const canRead = useCan('maintenance:read');
  return useQuery({
    queryKey: ['maintenance-windows'],
    queryFn: loadAllWindows,
    enabled: canRead,
    refetchInterval: 60_000,
  });
}

const STATE_LABELS = { in_progress: 'In progress', scheduled: 'Scheduled', ended: 'Ended' } as const;

function StateBadge({ window: w }: { window: MaintenanceWindow }) {
  const state = w.active ? w.state : 'inactive';
  return (
    <span className={`badge state-${state}`}>
      <span className="dot" aria-hidden="true" />
      {w.active ? STATE_LABELS[w.state] : 'Inactive'}
    </span>
  );
}

/** When a window happens, in words: the one-off span, or the rule, its length and zone. */
function When({ window: w }: { window: MaintenanceWindow }) {
  if (w.rrule === null)
    return (
      <>
        <Time at={w.starts_at} /> to {w.ends_at === null ? '–' : <Time at={w.ends_at} />}
      </>
    );
  return (
    <>
      {describeRrule(w.rrule)} at {wallTime(w.starts_at, w.timezone).slice(11)} ({w.timezone}) for{' '}
      {duration(w.duration ?? 0)}, from <Time at={w.starts_at} />
    </>
  );
}

function WindowList() {
  const windows = useMaintenanceWindows();
  const canWrite = useCan('maintenance:write');
  const client = useQueryClient();
  const remove = useMutation({
    mutationFn: (id: string) => api.delete(`/api/maintenance_windows/${id}`),
    onSuccess: () => client.invalidateQueries({ queryKey: ['maintenance-windows'] }),
  });
  const sorted = sortWindows(windows.data ?? []);
  return (
    <section aria-labelledby="maintenance-title">
      <div className="heading">
        <h1 id="maintenance-title">Maintenance</h1>
        {canWrite && (
          <Link className="button primary" href="/maintenance/new">
            New window
          </Link>
        )}
      </div>
      <p className="muted">
        While a window covers a monitor, its checks go on but open no incident, notify nobody and count in no uptime;
        public status pages say “Under maintenance”.
      </p>
      {windows.isPending && <Loading what="maintenance windows" />}
      <ErrorNote error={windows.error ?? remove.error} />
      {windows.data?.length === 0 && (
        <div className="empty card">
          <h2>No maintenance windows</h2>
          <p>Plan one for a deploy or a recurring backup, so that nobody is paged for it.</p>
        </div>
      )}
      {sorted.length > 0 && (
        <div className="card">
          <TableScroll label="Maintenance windows">
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">State</th>
                  <th scope="col">When</th>
                  <th scope="col">Next start</th>
                  <th scope="col">Monitors</th>
                  {canWrite && <th scope="col">Actions</th>}
                </tr>
              </thead>
              <tbody>
                {sorted.map((w) => (
                  <tr key={w.id} data-window={w.id}>
                    <td>{canWrite ? <Link href={`/maintenance/${w.id}`}>{w.name}</Link> : w.name}</td>
                    <td>
                      <StateBadge window={w} />
                    </td>
                    <td>
                      <When window={w} />
                    </td>
                    <td>{w.next_start_at === null ? '–' : <Time at={w.next_start_at} />}</td>
                    <td>{w.monitors.length === 0 ? 'All' : w.monitors.length}</td>
                    {canWrite && (
                      <td>
                        <button
                          type="button"
                          className="danger"
                          aria-label={`Delete ${w.name}`}
                          disabled={remove.isPending}
                          onClick={() => {
                            if (confirm(`Delete the maintenance window “${w.name}”? Its monitors alert again at once.`))
                              remove.mutate(w.id);
                          }}
                        >
                          Delete
                        </button>
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        </div>
      )}
    </section>
  );
}

type RepeatChoice = Repeat['kind'] | 'custom';

interface WindowDraft {
  name: string;
  monitors: string[];
  everyMonitor: boolean;
  recurring: boolean;
  timezone: string;
  /** Wall-clock `YYYY-MM-DDTHH:mm` in `timezone`. */
  start: string;
  end: string;
  repeat: RepeatChoice;
  days: Weekday[];
  monthDay: string;
  rrule: string;
  /** Minutes. */
  minutes: string;
  active: boolean;
  /** The stored instants and how the form showed them: unchanged text sends the stored instant (seconds kept). */
  shown: { start: string; end: string; timezone: string; starts_at: number; ends_at: number | null } | null;
}

function emptyWindowDraft(now: number): WindowDraft {
  const zone = browserZone();
  const hour = Math.ceil(now / 3600) * 3600;
  return {
    name: '',
    monitors: [],
    everyMonitor: false,
    recurring: false,
    timezone: zone,
    start: wallTime(hour, zone),
    end: wallTime(hour + 3600, zone),
    repeat: 'weekly',
    days: ['SU'],
    monthDay: '1',
    rrule: 'FREQ=WEEKLY;BYDAY=SU',
    minutes: '60',
    active: true,
    shown: null,
  };
}

function draftOfWindow(w: MaintenanceWindow): WindowDraft {
  const repeat = w.rrule === null ? null : repeatOf(w.rrule);
  const base = emptyWindowDraft(w.starts_at);
  return {
    ...base,
    name: w.name,
    monitors: w.monitors,
    everyMonitor: w.monitors.length === 0,
    recurring: w.rrule !== null,
    timezone: w.timezone,
    start: wallTime(w.starts_at, w.timezone),
    end: w.ends_at === null ? base.end : wallTime(w.ends_at, w.timezone),
    repeat: w.rrule === null ? base.repeat : (repeat?.kind ?? 'custom'),
    days: repeat?.kind === 'weekly' ? repeat.days : base.days,
    monthDay: repeat?.kind === 'monthly' ? String(repeat.day) : base.monthDay,
    rrule: w.rrule ?? base.rrule,
    minutes: w.duration === null ? base.minutes : String(w.duration / 60),
    active: w.active,
    shown: {
      start: wallTime(w.starts_at, w.timezone),
      end: w.ends_at === null ? '' : wallTime(w.ends_at, w.timezone),
      timezone: w.timezone,
      starts_at: w.starts_at,
      ends_at: w.ends_at,
    },
  };
}

/** The RRULE the builder's choice makes (a custom rule is the text as typed). */
function ruleOf(d: WindowDraft): string {
  if (d.repeat === 'custom') return d.rrule.trim();
  if (d.repeat === 'weekly') return rruleOf({ kind: 'weekly', days: d.days });
  if (d.repeat === 'monthly') return rruleOf({ kind: 'monthly', day: Number(d.monthDay) || 1 });
  return rruleOf({ kind: 'daily' });
}

/** The API body: a time the zone cannot read is sent as typed, for the API to name it. */
function windowBody(d: WindowDraft): Record<string, unknown> {
  const same = d.shown !== null && d.shown.timezone === d.timezone;
  const at = (text: string, shown: string | undefined, stored: number | null | undefined) =>
    same && text === shown && stored !== null && stored !== undefined
      ? stored
      : (unixOfWallTime(text, d.timezone) ?? text);
  const minutes = Number(d.minutes);
  const common = {
    name: d.name,
    monitors: d.everyMonitor ? [] : d.monitors,
    starts_at: at(d.start, d.shown?.start, d.shown?.starts_at),
    timezone: d.timezone.trim(),
    active: d.active,
  };
  return d.recurring
    ? {
        ...common,
        rrule: ruleOf(d),
        duration: d.minutes.trim() !== '' && Number.isFinite(minutes) ? Math.round(minutes * 60) : d.minutes,
        ends_at: null,
      }
    : { ...common, ends_at: at(d.end, d.shown?.end, d.shown?.ends_at), rrule: null, duration: null };
}

const WINDOW_FIELDS = ['name', 'monitors', 'starts_at', 'ends_at', 'rrule', 'duration', 'timezone', 'active'];

/**
 * The body the preview is asked about: the draft's schedule as a save would send it; null while
 * the draft lacks a field of it. Name and monitors are a stand-in (judged on save, not here).
 */
function previewBody(d: WindowDraft): Record<string, unknown> | null {
  const missing =
    d.start.trim() === '' ||
    d.timezone.trim() === '' ||
    (d.recurring ? d.minutes.trim() === '' || ruleOf(d) === '' : d.end.trim() === '');
  return missing ? null : { ...windowBody(d), name: 'Preview', monitors: [] };
}

/** `value` once it has not changed for `ms` (compared by its JSON text). */
function useSettled<T>(value: T, ms: number): T {
  const text = JSON.stringify(value);
  const [settled, setSettled] = useState(text);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(text), ms);
    return () => clearTimeout(timer);
  }, [text, ms]);
  return JSON.parse(settled) as T;
}

/** The form's labels of the fields a preview can refuse. */
const PREVIEW_LABELS: Record<string, string> = {
  ends_at: 'Ends',
  rrule: 'RRULE',
  duration: 'Lasts',
  timezone: 'Time zone',
};

/**
 * The saved window's next start in the window's own zone, the zone the form below is written in
 * (UTC on hover), so the two never disagree on a wall-clock time.
 */
function NextStart({ at, timezone }: { at: number; timezone: string }) {
  const zone = displayZone(timezone);
  return (
    <>
      Next start:{' '}
      <time dateTime={new Date(at * 1000).toISOString()} title={utcTime(at)}>
        {zonedDateTime(at, zone)}
      </time>{' '}
      ({zone}).
    </>
  );
}

/**
 * The draft's next occurrences from `POST /api/maintenance_windows/preview`, asked 300 ms after
 * the last edit: the first PREVIEW_SHOWN, in the form's zone (UTC on hover), or the API's
 * refusal; nothing while the draft is incomplete.
 */
function OccurrencePreview({ draft }: { draft: WindowDraft }) {
  const headingId = useId();
  const body = useSettled(previewBody(draft), 300);
  const preview = useQuery({
    queryKey: ['maintenance-preview', body],
    queryFn: async () =>
      (await api.post<{ data: { occurrences: Occurrence[] } }>('/api/maintenance_windows/preview', body)).data
        .occurrences,
    enabled: body !== null,
    retry: false,
    staleTime: 30_000,
    placeholderData: keepPreviousData,
  });
  const zone = displayZone(typeof body?.timezone === 'string' ? body.timezone : 'UTC');
  const now = Date.now() / 1000;
  let shown: ReactNode;
  if (body === null) {
    shown = null;
  } else if (preview.isError) {
    const error = preview.error;
    const messages =
      error instanceof ApiError && error.details.length > 0
        ? error.details.map((d) => {
            const label =
              d.field === 'starts_at' ? (draft.recurring ? 'First start' : 'Starts') : PREVIEW_LABELS[d.field];
            return `${label ?? d.field}: ${d.message}`;
          })
        : [error instanceof Error ? error.message : 'The preview failed.'];
    shown = (
      <div className="note error" data-preview="invalid">
        {messages.map((m) => (
          <p key={m}>{m}</p>
        ))}
      </div>
    );
  } else if (preview.data === undefined) {
    shown = <p className="muted">Computing…</p>;
  } else if (preview.data.length === 0) {
    shown = <p className="muted">None to come: the schedule has ended.</p>;
  } else {
    shown = (
      <ol className="plain occurrences" aria-labelledby={headingId}>
        {preview.data.slice(0, PREVIEW_SHOWN).map((o) => {
          const text = occurrenceText(o, zone);
          return (
            <li key={o.starts_at}>
              <time dateTime={new Date(o.starts_at * 1000).toISOString()} title={utcTime(o.starts_at)}>
                {text.start}
              </time>{' '}
              to{' '}
              <time dateTime={new Date(o.ends_at * 1000).toISOString()} title={utcTime(o.ends_at)}>
                {text.end}
              </time>
              {o.starts_at <= now && <span className="muted"> (under way)</span>}
            </li>
          );
        })}
      </ol>
    );
  }
  return (
    <section className="preview" aria-labelledby={headingId}>
      <h2 id={headingId}>Next occurrences</h2>
      <p className="hint">
        {body === null
          ? 'Shown once the schedule is complete.'
          : zone === 'UTC'
            ? 'In UTC.'
            : `In ${zone}; hover a time for UTC.`}
        {!draft.active && ' Inactive: they cover nothing until the window is active.'}
      </p>
      <div aria-live="polite">{shown}</div>
    </section>
  );
}

function WindowForm({ id }: { id?: string }) {
  const client = useQueryClient();
  const existing = useQuery({
    queryKey: ['maintenance-windows', id],
    queryFn: async () => (await api.get<{ data: MaintenanceWindow }>(`/api/maintenance_windows/${id}`)).data,
    enabled: id !== undefined,
  });
  const [draft, setDraft] = useState<WindowDraft | null>(() =>
    id === undefined ? emptyWindowDraft(Date.now() / 1000) : null,
  );
  useEffect(() => {
    if (existing.data && draft === null) setDraft(draftOfWindow(existing.data));
  }, [existing.data, draft]);
  const [errors, setErrors] = useState<{ byField: Record<string, string>; unplaced: string[] }>({
    byField: {},
    unplaced: [],
  });
  const save = useMutation({
    mutationFn: async (body: Record<string, unknown>) =>
      id === undefined
        ? (await api.post<{ data: MaintenanceWindow }>('/api/maintenance_windows', body)).data
        : (await api.put<{ data: MaintenanceWindow }>(`/api/maintenance_windows/${id}`, body)).data,
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: ['maintenance-windows'] });
      navigate('/maintenance');
    },
    onError: (error) => {
      if (error instanceof ApiError && error.details.length > 0) setErrors(fieldErrors(error.details, WINDOW_FIELDS));
    },
  });
  const remove = useMutation({
    mutationFn: () => api.delete(`/api/maintenance_windows/${id}`),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: ['maintenance-windows'] });
      navigate('/maintenance');
    },
  });

  if (id !== undefined && existing.isPending) return <Loading what="the maintenance window" />;
  if (existing.isError) return <ErrorNote error={existing.error} />;
  if (draft === null) return null;
  const set = (change: Partial<WindowDraft>) => setDraft({ ...draft, ...change });
  const err = (field: string) => errors.byField[field];
  const general = save.error instanceof ApiError && save.error.details.length === 0 ? save.error : null;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setErrors({ byField: {}, unplaced: [] });
    save.mutate(windowBody(draft));
  };
  const rule = ruleOf(draft);

  return (
    <section aria-labelledby="window-title">
      <p className="crumbs">
        <Link href="/maintenance">Maintenance</Link> /
      </p>
      <h1 id="window-title">{id === undefined ? 'New maintenance window' : `Edit ${existing.data?.name ?? ''}`}</h1>
      {existing.data && (
        <p>
          <StateBadge window={existing.data} />{' '}
          {existing.data.next_start_at === null ? (
            'No start to come.'
          ) : (
            <NextStart at={existing.data.next_start_at} timezone={existing.data.timezone} />
          )}
        </p>
      )}
      <form className="card form" onSubmit={submit} noValidate>
        {(errors.unplaced.length > 0 || general) && (
          <div className="note error" role="alert">
            {general ? general.message : 'The window was not saved:'} {errors.unplaced.join(' ')}
          </div>
        )}
        <Field label="Name" error={err('name')}>
          {(p) => <input {...p} maxLength={100} value={draft.name} onChange={(e) => set({ name: e.target.value })} />}
        </Field>
        <label className="choice">
          <input
            type="checkbox"
            checked={draft.everyMonitor}
            onChange={(e) => set({ everyMonitor: e.target.checked })}
          />
          Every monitor of the account (later ones too)
        </label>
        {!draft.everyMonitor && (
          <MonitorPicker
            legend={`Monitors covered (${draft.monitors.length})`}
            chosen={draft.monitors}
            onChange={(monitors) => set({ monitors })}
            error={err('monitors')}
          />
        )}
        {draft.everyMonitor && err('monitors') && (
          <p className="error" role="alert">
            {err('monitors')}
          </p>
        )}
        <fieldset>
          <legend>Happens</legend>
          <div className="choices">
            <label className="choice">
              <input type="radio" name="kind" checked={!draft.recurring} onChange={() => set({ recurring: false })} />
              Once
            </label>
            <label className="choice">
              <input type="radio" name="kind" checked={draft.recurring} onChange={() => set({ recurring: true })} />
              Repeatedly
            </label>
          </div>
        </fieldset>
        <div className="row3">
          <Field label={draft.recurring ? 'First start' : 'Starts'} error={err('starts_at')}>
            {(p) => (
              <input
                {...p}
                type="datetime-local"
                value={draft.start}
                onChange={(e) => set({ start: e.target.value })}
              />
            )}
          </Field>
          {draft.recurring ? (
            <Field label="Lasts (minutes)" error={err('duration')} hint="1 minute to 7 days">
              {(p) => (
                <input
                  {...p}
                  type="number"
                  min={1}
                  max={10080}
                  value={draft.minutes}
                  onChange={(e) => set({ minutes: e.target.value })}
                />
              )}
            </Field>
          ) : (
            <Field label="Ends" error={err('ends_at')}>
              {(p) => (
                <input {...p} type="datetime-local" value={draft.end} onChange={(e) => set({ end: e.target.value })} />
              )}
            </Field>
          )}
          <Field label="Time zone" error={err('timezone')} hint="An IANA zone, such as Europe/Berlin">
            {(p) => <input {...p} value={draft.timezone} onChange={(e) => set({ timezone: e.target.value })} />}
          </Field>
        </div>
        {draft.recurring && (
          <fieldset>
            <legend>Repeats</legend>
            <div className="choices">
              {(
                [
                  ['daily', 'Every day'],
                  ['weekly', 'Every week'],
                  ['monthly', 'Every month'],
                  ['custom', 'Custom rule'],
                ] as const
              ).map(([kind, label]) => (
                <label key={kind} className="choice">
                  <input
                    type="radio"
                    name="repeat"
                    checked={draft.repeat === kind}
                    onChange={() => set({ repeat: kind, rrule: kind === 'custom' ? rule : draft.rrule })}
                  />
                  {label}
                </label>
              ))}
            </div>
            {draft.repeat === 'weekly' && (
              <fieldset>
                <legend>On</legend>
                <div className="choices">
                  {WEEKDAYS.map(([day, name]) => (
                    <label key={day} className="choice">
                      <input
                        type="checkbox"
                        checked={draft.days.includes(day)}
                        onChange={(e) =>
                          set({ days: e.target.checked ? [...draft.days, day] : draft.days.filter((d) => d !== day) })
                        }
                      />
                      {name}
                    </label>
                  ))}
                </div>
              </fieldset>
            )}
            {draft.repeat === 'monthly' && (
              <Field label="Day of the month" hint="1 to 31 (a month without that day is skipped)">
                {(p) => (
                  <input
                    {...p}
                    type="number"
                    min={1}
                    max={31}
                    value={draft.monthDay}
                    onChange={(e) => set({ monthDay: e.target.value })}
                  />
                )}
              </Field>
            )}
            <Field
              label="RRULE"
              error={err('rrule')}
              hint="RFC 5545, without “RRULE:”, e.g. FREQ=WEEKLY;INTERVAL=2;BYDAY=SA. Typing here makes it a custom rule."
            >
              {(p) => (
                <input
                  {...p}
                  className="code"
                  value={draft.repeat === 'custom' ? draft.rrule : rule}
                  onChange={(e) => set({ repeat: 'custom', rrule: e.target.value })}
                />
              )}
            </Field>
            <p className="muted">
              Repeats {describeRrule(rule)} at {draft.start.slice(11) || '–'} {draft.timezone}, from{' '}
              {draft.start.slice(0, 10) || '–'}.
            </p>
          </fieldset>
        )}
        <label className="choice">
          <input type="checkbox" checked={draft.active} onChange={(e) => set({ active: e.target.checked })} />
          Active (an inactive window covers nothing)
        </label>
        <OccurrencePreview draft={draft} />
        <FormActions
          save={id === undefined ? 'Create window' : 'Save changes'}
          saving={save.isPending}
          cancel="/maintenance"
          {...(id === undefined
            ? {}
            : { confirmDelete: `Delete the maintenance window “${draft.name}”? Its monitors alert again at once.` })}
          onDelete={() => remove.mutate()}
          deleting={remove.isPending}
          deleteError={remove.error}
        />
      </form>
    </section>
  );
}

/** Maintenance windows: the list, or a window's form (`/maintenance/new`, `/maintenance/{id}`). */
export function MaintenancePage({ id, creating }: { id?: string; creating?: boolean }) {
  const canWrite = useCan('maintenance:write');
  if ((creating || id !== undefined) && !canWrite)
    return <ReadOnlyNote what="maintenance windows" back={<Link href="/maintenance">Back to the list</Link>} />;
  if (creating) return <WindowForm />;
  if (id !== undefined) return <WindowForm id={id} />;
  return <WindowList />;
}
