import type { Node, NodeMessage } from 'node-red';
import { HaError } from '../../ha/websocket.js';
import { errorDetails, shortReason, toError } from '../shared/errors.js';
import type { FlowNodeRuntime } from '../shared/flow-node.js';

type Words = (key: string, values?: Record<string, string | number>) => string;

/** The same problem is warned of again at most this often while it lasts (reads that fail every minute are not a storm). */
const REWARN_MS = 3_600_000;

/**
 * What the node's status and log say: the broker's connection (one warning per loss, or for a broker
 * never reached), a read problem (red until a read goes through; one warning per distinct problem, again
 * after an hour if it lasts), and how many devices it publishes.
 */
export class MqttNodeStatus {
  devices = 0;
  private brokerUp = false;
  private warnedDown = false;
  private problem?: string;
  private readonly warnedAt = new Map<string, number>();
  /** Bad input: the node publishes nothing, and its status stays red. */
  private fatal?: string;
  /** The history import's progress or outcome (after the device count), or its failure (red until a run goes through). */
  private history?: { key: string; values: Record<string, string | number> };
  private historyProblem?: string;

  constructor(private readonly rt: FlowNodeRuntime, private readonly node: Node, private readonly t: Words) {}

  /** Bad input: a red status and an error (logged; a msg sent to the node is refused with it). */
  refuse(err: unknown): void {
    this.fatal = toError(err).message;
    this.rt.error(err);
    this.node.error(this.fatal);
  }

  get connected(): boolean {
    return this.brokerUp;
  }

  up(): void {
    this.brokerUp = true;
    this.warnedDown = false;
    this.show();
  }

  /** The broker went away, or has not been reached yet. */
  down(): void {
    if (this.rt.closed || this.fatal) return;
    this.brokerUp = false;
    if (!this.warnedDown) this.node.warn(this.t('errors.brokerDown'));
    this.warnedDown = true;
    this.show();
  }

  failed(err: unknown): void {
    if (this.rt.closed || this.fatal) return;
    const text = toError(err).message;
    const now = this.rt.now();
    const last = this.warnedAt.get(text);
    if (last === undefined || now - last >= REWARN_MS) {
      if (this.warnedAt.size >= 50) this.warnedAt.clear();
      this.warnedAt.set(text, now);
      this.node.warn(text);
    }
    this.problem = text;
    this.rt.error(err);
  }

  /** A command from MQTT failed: to the log and a Catch node (with the msg), and a red status. */
  refused(err: unknown, msg: NodeMessage): void {
    if (this.rt.closed) return;
    this.problem = toError(err).message;
    this.rt.error(err);
    this.node.error(this.problem, { ...msg, apiError: errorDetails(err) } as NodeMessage);
  }

  /** A shared read went through: a read problem is over. */
  ok(): void {
    if (!this.problem) return;
    this.problem = undefined;
    this.show();
  }

  /** The history import's progress (`key`: status.historyProgress, historyDone, historyWaiting); clears its failure. */
  historyShow(key: string, values: Record<string, string | number> = {}): void {
    this.history = { key, values };
    this.historyProblem = undefined;
    this.show();
  }

  historyFailed(err: unknown): void {
    if (this.rt.closed || this.fatal) return;
    this.historyProblem = err instanceof HaError ? `HA: ${err.code.replace(/_/g, ' ')}` : shortReason(err);
    this.history = undefined;
    this.node.error(this.t('errors.historyFailed', { reason: toError(err).message }));
    this.show();
  }

  show(): void {
    if (this.problem || this.fatal) return;
    if (this.historyProblem) return this.rt.status({ fill: 'red', shape: 'ring', text: this.t('status.historyFailed', { reason: this.historyProblem }) });
    if (!this.brokerUp) return this.rt.status({ fill: 'yellow', shape: 'ring', text: this.t('status.brokerDown') });
    if (this.devices === 0) return this.rt.busy(this.t('status.starting'));
    const text = this.t('status.publishing', { devices: this.devices });
    if (this.history) return this.rt.status({ fill: 'green', shape: 'dot', text: this.t(this.history.key, { ...this.history.values, text }) });
    this.rt.status({ fill: 'green', shape: 'dot', text });
  }
}
