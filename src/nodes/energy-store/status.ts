import type { NodeStatus } from 'node-red';
import type { Health } from './store.js';
import { QUEUE_WARN_SHARE } from './settings.js';

type Translate = (key: string, values?: Record<string, string | number>) => string;

/** "40 s", "35 min", "2.5 h", "3 d": a queue's age at a glance. */
export function ageText(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  if (s < 172_800) return `${Math.round(s / 360) / 10} h`;
  return `${Math.round(s / 8640) / 10} d`;
}

/** The queue as the output and the status give it. */
export function queueFigures(health: Health, nowMs: number, limitBytes: number): { batches: number; entries: number; bytes: number; ageS: number; full: number } {
  const q = health.queue;
  return {
    batches: q.batches,
    entries: q.entries,
    bytes: q.bytes,
    ageS: q.oldestAt === undefined ? 0 : Math.max(0, Math.round((nowMs - q.oldestAt) / 1000)),
    full: Math.round((q.bytes / limitBytes) * 1000) / 1000,
  };
}

/** One status per health: green written, blue busy, yellow waiting (queue size and age), red refused. */
export function statusOf(health: Health, nowMs: number, limitBytes: number, _: Translate, zone: string | undefined): NodeStatus {
  const q = queueFigures(health, nowMs, limitBytes);
  const queued = q.entries ? _('energy-store.status.queued', { entries: q.entries, age: ageText(q.ageS * 1000) }) : '';
  const nearlyFull = q.full >= QUEUE_WARN_SHARE ? ` · ${_('energy-store.status.full', { percent: Math.round(q.full * 100) })}` : '';
  switch (health.state) {
    case 'starting':
      return { fill: 'blue', shape: 'ring', text: _('energy-store.status.connecting') };
    case 'unreachable':
      return { fill: 'yellow', shape: 'ring', text: `${_('energy-store.status.unreachable')}${queued ? ` · ${queued}` : ''}${nearlyFull}` };
    case 'refused':
    case 'unavailable':
      return { fill: 'red', shape: 'ring', text: `${shortText(health.error)}${queued ? ` · ${queued}` : ''}` };
    default: {
      if (q.entries) return { fill: nearlyFull ? 'yellow' : 'blue', shape: 'dot', text: `${_('energy-store.status.writing')} · ${queued}${nearlyFull}` };
      if (!health.lastWrite) return { fill: 'green', shape: 'ring', text: _('energy-store.status.ready') };
      const at = new Date(health.lastWrite.at).toLocaleTimeString('en-GB', { timeZone: zone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
      return { fill: 'green', shape: 'dot', text: _('energy-store.status.written', { entries: health.lastWrite.entries, at }) };
    }
  }
}

/** The start of an error's message: the status has room for a few words, the Catch node gets it all. */
export function shortText(err: unknown): string {
  // "PostgreSQL refused: password authentication failed…": the reason, which the status has room for.
  const message = (err instanceof Error ? err.message : String(err ?? '')).replace(/^(PostgreSQL|InfluxDB) refused: /, '');
  return message.length > 48 ? `${message.slice(0, 47)}…` : message;
}
