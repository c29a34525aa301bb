/**
 * What the node keeps across restarts, in a file of Node-RED's user directory
 * (`<userDir>/energy-forecast/<node id>.json`, written whole through a temporary file): the last good forecast,
 * the archive of forecasts waiting for their measurement, the calibration's pairs and how far the measurements were
 * read. A file, not the context store: it survives a restart without any context-storage setting.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EMPTY_KEPT, isKept, type Kept } from '../../domain/forecast/session.js';

export function userDirOf(settings: { userDir?: unknown }): string {
  return typeof settings.userDir === 'string' && settings.userDir ? settings.userDir : path.join(os.homedir(), '.node-red');
}

export function keptFile(userDir: string, nodeId: string): string {
  return path.join(userDir, 'energy-forecast', `${nodeId.replace(/[^A-Za-z0-9_.-]/g, '_')}.json`);
}

/** What the file holds; nothing (EMPTY) when there is none or it is unreadable. */
export async function readKept(file: string): Promise<Kept> {
  try {
    const parsed: unknown = JSON.parse(await fs.readFile(file, 'utf8'));
    return isKept(parsed) ? parsed : { ...EMPTY_KEPT };
  } catch {
    return { ...EMPTY_KEPT };
  }
}

/** Writes one state after another (never two at once), each whole. */
export class KeptWriter {
  private chain: Promise<void> = Promise.resolve();
  constructor(private readonly file: string, private readonly onError: (err: unknown) => void) {}

  write(kept: Kept): Promise<void> {
    const text = JSON.stringify(kept);
    this.chain = this.chain.then(async () => {
      try {
        await fs.mkdir(path.dirname(this.file), { recursive: true });
        const temp = `${this.file}.tmp`;
        await fs.writeFile(temp, text);
        await fs.rename(temp, this.file);
      } catch (err) {
        this.onError(err);
      }
    });
    return this.chain;
  }

  /** Resolves when every write asked for is on disk. */
  settled(): Promise<void> {
    return this.chain;
  }

  async remove(): Promise<void> {
    await this.chain;
    await fs.rm(this.file, { force: true });
  }
}
