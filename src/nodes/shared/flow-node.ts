import type { Node, NodeAPI, NodeDef, NodeMessage, NodeMessageInFlow, NodeStatus } from 'node-red';
import { checkDeviceId, EnergyApiError, isPackageError, type CallOptions, type EnergyApiClient } from '../../api/index.js';
import { nodeClock, type Now } from './clock.js';
import type { EnergyApiConfigNode } from './config-types.js';
import { errorDetails, shortReason, toError } from './errors.js';
import { commonKey } from './i18n.js';
import { RetryStatus } from './retry-status.js';
import { describeValue, guardMessage } from './msg-guard.js';
import { startInput } from './input-turns.js';
import { AddressedDevices } from './addressed-devices.js';

/** Properties every flow node of this package has. */
export interface FlowNodeDef extends NodeDef {
  api: string;
  deviceId?: string;
}

export type SendFn = (msg: NodeMessage | Array<NodeMessage | NodeMessage[] | null>) => void;

export interface InputContext<M extends NodeMessageInFlow = NodeMessageInFlow> {
  msg: M;
  send: SendFn;
  client: EnergyApiClient;
  config: EnergyApiConfigNode;
  /** Aborted when the node closes (redeploy, stop). */
  signal: AbortSignal;
  /** Options for every client call: `signal`, and a yellow status while a request is retried or waits after a 429. */
  call: NodeCallOptions;
}

export type NodeCallOptions = CallOptions & { signal: AbortSignal };

type Handler<M extends NodeMessageInFlow> = (ctx: InputContext<M>) => Promise<void>;

/** What a node that does not use the energy API gets for each input (see `onMessage`). */
export type MessageContext<M extends NodeMessageInFlow = NodeMessageInFlow> = Omit<InputContext<M>, 'client' | 'config'>;
type MessageHandler<M extends NodeMessageInFlow> = (ctx: MessageContext<M>) => Promise<void>;

export interface RuntimeOptions {
  /** False for a node that never talks to the energy API (no energy-api config node). Default true. */
  api?: boolean;
  /** The status a failure shows (undefined: the status stays as it is); default a red ring with the short reason. */
  errorStatus?: (err: unknown) => NodeStatus | undefined;
}

/**
 * The part every flow node shares: finds the config node, runs each input as one async task,
 * turns failures into `done(err)` + a red status + `msg.apiError`, and on close aborts requests,
 * clears timers and drops late results.
 */
export class FlowNodeRuntime {
  readonly config: EnergyApiConfigNode | null;
  /** The nodes' clock in ms (see nodeClock): every time-based decision of a node reads it. */
  readonly now: Now;
  private readonly aborter = new AbortController();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly cleanups: Array<() => void | Promise<void>> = [];
  /** Options for every client call: aborted on close, retries shown in the status. */
  readonly call: NodeCallOptions;
  private shown?: NodeStatus;
  private readonly addressed = new AddressedDevices();

  constructor(
    private readonly RED: NodeAPI,
    readonly node: Node,
    private readonly def: FlowNodeDef,
    private readonly options: RuntimeOptions = {},
  ) {
    this.now = nodeClock(RED);
    const retries = new RetryStatus(
      (attempt) => RED._(commonKey('status.retrying'), { attempt }),
      () => RED._(commonKey('status.rateLimited')),
      () => this.shown,
      (s) => this.status(s),
    );
    this.call = { signal: this.aborter.signal, onRetry: retries.onRetry };
    this.config = (def.api ? (RED.nodes.getNode(def.api) as EnergyApiConfigNode | null) : null) ?? null;
    if (options.api === false) {
      // Nothing to register with and nothing to warn about.
    } else if (!this.config) {
      this.node.status({ fill: 'red', shape: 'ring', text: RED._(commonKey('status.noConfig')) });
    } else {
      this.config.register(node);
      if (this.config.problem) this.node.status({ fill: 'red', shape: 'ring', text: RED._(commonKey('status.configProblem')) });
    }
    node.on('close', (_removed: boolean, done: () => void) => {
      void this.close().finally(done);
    });
  }

  get closed(): boolean {
    return this.aborter.signal.aborted;
  }

  get signal(): AbortSignal {
    return this.aborter.signal;
  }

  /** The device to act on: `msg.deviceId` overrides the node's property. */
  deviceId(msg: { deviceId?: unknown }): string {
    const raw = msg.deviceId ?? this.def.deviceId;
    if (raw === undefined || raw === null || raw === '') {
      throw EnergyApiError.invalid('no device id: set one in the node or send msg.deviceId');
    }
    if (typeof raw !== 'string') throw EnergyApiError.invalid(`msg.deviceId must be text such as B300000000001, not ${describeValue(raw)}`);
    const id = checkDeviceId(raw);
    if (msg.deviceId !== undefined && msg.deviceId !== null && msg.deviceId !== '') this.addressed.note(id, this.now());
    return id;
  }

  /** How many devices msgs named in the last 10 minutes (at least 1): what one trigger of this node reads. */
  devicesPerTrigger(): number {
    return Math.max(1, this.addressed.count(this.now()));
  }

  /** The client, or an error that says why the config node cannot give one. */
  client(): EnergyApiClient {
    if (!this.config) throw EnergyApiError.invalid('no energy-api config node is selected');
    if (!this.config.client) throw EnergyApiError.invalid(`the energy-api config node is not usable: ${this.config.problem ?? 'no API key'}`);
    return this.config.client;
  }

  /**
   * `prepare` runs first, before any check can fail: it takes out of the msg what no Catch node may
   * see (a PSK).
   */
  onInput<M extends NodeMessageInFlow>(handler: Handler<M>, prepare?: (msg: M) => void): void {
    this.node.on('input', (msg: NodeMessageInFlow, send: SendFn, done: (err?: Error) => void) => {
      startInput(() => void this.run(handler, msg as M, send, safeDone(this.node, done), prepare));
    });
  }

  /** Like onInput, for a node that does not use the energy API: no client, no config node. */
  onMessage<M extends NodeMessageInFlow>(handler: MessageHandler<M>, prepare?: (msg: M) => void): void {
    this.node.on('input', (msg: NodeMessageInFlow, send: SendFn, done: (err?: Error) => void) => {
      void this.run((ctx) => handler(ctx), msg as M, send, safeDone(this.node, done), prepare, false);
    });
  }

  /** Runs a task outside an input (polling, deploy-time output); failures become a warning and a red status. */
  async runTask(task: (client: EnergyApiClient) => Promise<void>): Promise<void> {
    return this.runJob(async () => task(this.client()));
  }

  /** runTask for a node that does not use the energy API. */
  async runJob(job: () => Promise<void>): Promise<void> {
    if (this.closed) return;
    try {
      await job();
    } catch (err) {
      if (this.closed || isAborted(err)) return;
      this.error(err);
      this.node.warn(toError(err).message);
    }
  }

  status(status: NodeStatus): void {
    if (this.closed) return;
    this.shown = status;
    this.node.status(status);
  }

  busy(text: string): void {
    this.status({ fill: 'blue', shape: 'dot', text });
  }

  error(err: unknown): void {
    const shown = this.options.errorStatus ? this.options.errorStatus(err) : { fill: 'red' as const, shape: 'ring' as const, text: shortReason(err) };
    if (shown) this.status(shown);
  }

  /** setTimeout that is cleared on close and never fires after it. */
  setTimer(fn: () => void, ms: number): NodeJS.Timeout {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (!this.closed) fn();
    }, ms);
    this.timers.add(timer);
    return timer;
  }

  clearTimer(timer: NodeJS.Timeout | undefined): void {
    if (!timer) return;
    clearTimeout(timer);
    this.timers.delete(timer);
  }

  onClose(cleanup: () => void | Promise<void>): void {
    this.cleanups.push(cleanup);
  }

  private async run<M extends NodeMessageInFlow>(handler: Handler<M>, msg: M, send: SendFn, done: (err?: Error) => void, prepare?: (msg: M) => void, usesApi = true): Promise<void> {
    if (this.closed) return done();
    try {
      prepare?.(msg);
      guardMessage(msg as unknown as Record<string, unknown>);
      const client = usesApi ? this.client() : (undefined as unknown as EnergyApiClient);
      const guardedSend: SendFn = (out) => {
        if (!this.closed) send(out);
      };
      await handler({ msg, send: guardedSend, client, config: this.config as EnergyApiConfigNode, signal: this.signal, call: this.call });
      done();
    } catch (err) {
      if (this.closed && isAborted(err)) return done();
      (msg as NodeMessageInFlow & { apiError?: unknown }).apiError = errorDetails(err);
      this.error(err);
      done(toError(err));
    }
  }

  private async close(): Promise<void> {
    this.aborter.abort();
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const cleanup of this.cleanups.splice(0)) await cleanup();
    if (this.config) await new Promise<void>((resolve) => this.config?.deregister(this.node, resolve));
  }
}

/**
 * `done` that cannot throw back into the node: should Node-RED fail to hand the msg to a Catch or
 * Complete node, the error is still reported (without the msg) instead of becoming an unhandled rejection.
 */
function safeDone(node: Node, done: (err?: Error) => void): (err?: Error) => void {
  return (err) => {
    try {
      done(err);
    } catch (failure) {
      node.error(err ?? toError(failure));
    }
  };
}

/** The node's own cancel (closed or redeployed), seen in a call to the energy API or to an outside service. */
export function isAborted(err: unknown): boolean {
  return isPackageError(err) && err.code === 'ABORTED';
}
