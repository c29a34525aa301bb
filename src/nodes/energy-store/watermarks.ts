import { promises as fsp } from 'node:fs';
import path from 'node:path';
import type { StreamKey, Watermark } from './backends/types.js';

interface Stream extends Watermark {
  /** Oldest entry this node has written of the stream (what a flow may read back without asking the service). */
  oldest?: number;
  /** The device's timezone as energy-query last named it (msg.timezone), for reading back by local day. */
  timezone?: string;
}

export const streamId = (k: StreamKey): string => `${k.device}|${k.kind}|${k.granularity}`;

/**
 * The newest entry held per stream, kept in the user directory beside the queue and raised as soon
 * as a batch is queued (its entries are safe from then on), so the watermark is known at a restart
 * even while the database is away; the database's own figures are merged in when it answers.
 */
export class Watermarks {
  private readonly streams = new Map<string, Stream>();
  private saving: Promise<void> = Promise.resolve();

  constructor(private readonly file: string) {}

  async load(): Promise<void> {
    try {
      const saved = JSON.parse(await fsp.readFile(this.file, 'utf8')) as { streams?: Stream[] };
      for (const s of saved.streams ?? []) if (typeof s.newest === 'number') this.streams.set(streamId(s), s);
    } catch {
      // No file yet (or a damaged one): the database's figures fill it.
    }
  }

  /** Raises watermarks (never lowers them), and lowers `oldest` to what was written; returns whether anything changed. */
  raise(marks: ReadonlyArray<Watermark & { oldest?: number }>, timezone?: string): boolean {
    let changed = false;
    for (const m of marks) {
      const id = streamId(m);
      const known = this.streams.get(id);
      const oldest = m.oldest === undefined ? known?.oldest : Math.min(m.oldest, known?.oldest ?? Infinity);
      if (!known || m.newest > known.newest || oldest !== known.oldest || (timezone && known.timezone !== timezone)) {
        this.streams.set(id, { device: m.device, kind: m.kind, granularity: m.granularity, newest: Math.max(m.newest, known?.newest ?? 0), oldest, timezone: timezone ?? known?.timezone });
        changed = true;
      }
    }
    return changed;
  }

  /** The oldest and newest entry of a stream this node knows of. */
  held(k: StreamKey): { fromTs?: number; toTs?: number } {
    const s = this.streams.get(streamId(k));
    return { fromTs: s?.oldest, toTs: s?.newest };
  }

  list(): Watermark[] {
    return [...this.streams.values()].map(({ device, kind, granularity, newest }) => ({ device, kind, granularity, newest }));
  }

  timezoneOf(device: string): string | undefined {
    return [...this.streams.values()].find((s) => s.device === device && s.timezone)?.timezone;
  }

  /** Writes the file (temporary name, then rename); saves never overlap. */
  save(): Promise<void> {
    const text = JSON.stringify({ streams: [...this.streams.values()] });
    this.saving = this.saving.catch(() => undefined).then(async () => {
      await fsp.mkdir(path.dirname(this.file), { recursive: true });
      await fsp.writeFile(`${this.file}.tmp`, text);
      await fsp.rename(`${this.file}.tmp`, this.file);
    });
    return this.saving;
  }
}
