import { MsgError } from '../../api/index.js';
import type { Override } from '../../domain/site/types.js';

/** What a msg asks: force on/off (for a while or until `auto`), back to automatic, or evaluate now. */
export type LoadCommand = { kind: 'override'; override: Override } | { kind: 'auto' } | { kind: 'evaluate' };

const WORDS: Record<string, 'on' | 'off' | 'auto' | 'evaluate'> = {
  on: 'on', off: 'off', auto: 'auto', evaluate: 'evaluate', closed: 'on', open: 'off', true: 'on', false: 'off',
};

/** Reads msg.payload (on/off/auto/evaluate, true/false) and msg.duration (s, optional, overrides only). */
export function parseCommand(payload: unknown, duration: unknown, now: number): LoadCommand {
  const word = typeof payload === 'boolean' ? String(payload) : typeof payload === 'string' ? payload.trim().toLowerCase() : '';
  const command = WORDS[word];
  if (!command) {
    const shown = typeof payload === 'string' ? `"${payload.slice(0, 40)}"` : (JSON.stringify(payload) ?? String(payload)).slice(0, 40);
    throw new MsgError(`msg.payload ${shown} is not a command: send on, off (an override, with msg.duration in seconds to end it), auto, or evaluate`);
  }
  if (command === 'auto' || command === 'evaluate') return { kind: command };
  if (duration === undefined || duration === null || duration === '') return { kind: 'override', override: { state: command } };
  const seconds = Number(duration);
  if (!Number.isFinite(seconds) || seconds <= 0) throw new MsgError(`msg.duration must be a number of seconds above 0, not ${JSON.stringify(duration).slice(0, 20)}`);
  return { kind: 'override', override: { state: command, until: now + seconds * 1000 } };
}
