import type { NodeStatus } from 'node-red';

/** A message as MQTT.js hands it to a subscription callback (the parts used here). */
export interface Packet {
  retain?: boolean;
}

/** What the node uses of Node-RED's core `mqtt-broker` config node (core/network/10-mqtt.js). */
export interface MqttBrokerNode {
  id: string;
  type: string;
  connected?: boolean;
  /** MQTT.js's connect options as the broker node built them: its Last Will among them. */
  options?: { will?: { topic?: string; payload?: unknown; retain?: boolean } };
  register(user: BrokerUser): void;
  deregister(user: BrokerUser, done: () => void, autoDisconnect?: boolean): void;
  publish(msg: { topic: string; payload: string; qos: number; retain: boolean }, done?: (err?: unknown) => void): void;
  subscribe(topic: string, options: { qos: number }, callback: (topic: string, payload: Buffer, packet: Packet) => void, ref: string): void;
  unsubscribe(topic: string, ref: string, removeClientSubscription: boolean): void;
}

/** What the broker node keeps of each user: an id, and a status it pushes on every connect, reconnect attempt and loss. */
interface BrokerUser {
  id: string;
  status(status: NodeStatus): void;
}

/** The config node, if it is an `mqtt-broker` (deployed, with the methods the core nodes use). */
export function asBroker(node: unknown): MqttBrokerNode | undefined {
  const b = node as Partial<MqttBrokerNode> | null | undefined;
  if (!b || b.type !== 'mqtt-broker') return undefined;
  const methods = [b.register, b.deregister, b.publish, b.subscribe, b.unsubscribe];
  return methods.every((m) => typeof m === 'function') ? (b as MqttBrokerNode) : undefined;
}

/**
 * The links that announced a bridge topic, per broker node and topic: several energy-mqtt nodes (two keys, say) may share
 * one base topic and one connection, so the bridge goes offline, or is cleared, only when the last of them leaves.
 */
const announced = new Map<string, Set<BrokerLink>>();
/**
 * Every retained topic published by a node (by its id), across its redeploys: removed soon after a redeploy, before
 * the new instance has published everything again (power comes at its first interval), it still clears them all.
 */
const publishedBy = new Map<string, Set<string>>();

/** How long a close waits for the broker to take its last messages (offline, or the removal's empty payloads). */
const CLOSE_WAIT_MS = 3000;

export interface LinkEvents {
  /** Connected: at start, or back after a loss (everything published so far has just been sent again). */
  up(): void;
  /** The connection is lost (once per loss, not per reconnect attempt). */
  down(): void;
  /** A publish the broker refused (the topic, and why). */
  failed(topic: string, err: unknown): void;
}

/**
 * The node's use of the shared broker connection. Everything it publishes is a retained state: the
 * latest payload per topic is kept, sent when connected, and sent again whenever the connection comes
 * back (the broker may have lost its retained messages) or on `resend()` (Home Assistant's birth).
 * The broker node's status pushes go to a stand-in user, so they tell the link about the connection
 * without overwriting the node's own status.
 */
export class BrokerLink {
  private readonly latest = new Map<string, string>();
  private readonly subscriptions = new Set<string>();
  private readonly user: BrokerUser;
  private up = false;
  private closed = false;

  /**
   * `availabilityTopic`: the bridge's availability, `online` from each connect on, `offline` on close; the broker
   * node's Last Will should say `offline` there too (`willCovers`), so that a crash shows as well.
   */
  constructor(private readonly broker: MqttBrokerNode, private readonly ref: string, private readonly events: LinkEvents, private readonly availabilityTopic: string) {
    this.user = { id: ref, status: () => this.follow() };
  }

  /** The bridge is online (retained, sent again at every connect) from now on: once there are devices to show. */
  announce(): void {
    const key = this.bridgeKey();
    if (!announced.has(key)) announced.set(key, new Set());
    announced.get(key)?.add(this);
    this.publish(this.availabilityTopic, 'online');
  }

  private bridgeKey(): string {
    return `${this.broker.id}\u0000${this.availabilityTopic}`;
  }

  /** True when the broker node's Last Will marks the bridge offline (retained) when the connection dies unannounced. */
  willCovers(): boolean {
    const will = this.broker.options?.will;
    return will?.topic === this.availabilityTopic && String(will.payload) === 'offline' && will.retain === true;
  }

  get connected(): boolean {
    return this.up;
  }

  /** Registers with the broker node (its first user makes it connect). */
  start(): void {
    this.broker.register(this.user);
    this.follow();
  }

  /**
   * Publishes a retained state, unless the topic already holds it (it is then sent again only on `resend()`,
   * or when `force`d: a state sent back to correct what a command's sender assumed).
   */
  publish(topic: string, payload: string, force = false): void {
    if (this.closed || (!force && this.latest.get(topic) === payload)) return;
    this.latest.set(topic, payload);
    const ever = publishedBy.get(this.ref) ?? new Set<string>();
    ever.add(topic);
    publishedBy.set(this.ref, ever);
    if (this.up) this.send(topic, payload);
  }

  /** Sends every retained state again, in the order first published (discovery before states). */
  resend(): void {
    if (!this.up || this.closed) return;
    for (const [topic, payload] of this.latest) this.send(topic, payload);
  }

  subscribe(topic: string, handler: (payload: string, packet: Packet) => void): void {
    this.subscriptions.add(topic);
    this.broker.subscribe(topic, { qos: 1 }, (_topic, payload, packet) => {
      if (!this.closed) handler(payload.toString('utf8'), packet ?? {});
    }, this.ref);
  }

  unsubscribe(topic: string): void {
    if (this.subscriptions.delete(topic)) this.broker.unsubscribe(topic, this.ref, true);
  }

  /**
   * Unsubscribes and leaves the broker node (which disconnects with its last user when `removed`). Before leaving,
   * while connected: on a stop or redeploy the bridge is marked offline; when the node is removed, every retained
   * topic it published is cleared (discovery first, so Home Assistant removes its devices), the bridge's too. The
   * bridge's topic only when no other node still announces it on that broker.
   */
  async close(removed: boolean): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const topic of [...this.subscriptions]) this.unsubscribe(topic);
    const sharing = announced.get(this.bridgeKey());
    const wasAnnounced = sharing?.delete(this) === true;
    const lastOfBridge = wasAnnounced && sharing?.size === 0;
    if (lastOfBridge) announced.delete(this.bridgeKey());
    if (this.up && wasAnnounced) {
      // Discovery first (this instance's own, in the order published), then what earlier instances published.
      const own = [...new Set([...this.latest.keys(), ...(removed ? publishedBy.get(this.ref) ?? [] : [])])].filter((t) => t !== this.availabilityTopic);
      const last: Array<[string, string]> = removed ? own.map((t): [string, string] => [t, '']) : [];
      if (lastOfBridge) last.push([this.availabilityTopic, removed ? '' : 'offline']);
      await this.sendAll(last);
    }
    if (removed) publishedBy.delete(this.ref);
    await new Promise<void>((resolve) => this.broker.deregister(this.user, resolve, removed));
  }

  /** Sends each and resolves once the broker has taken them all, or after CLOSE_WAIT_MS. */
  private sendAll(messages: Array<[string, string]>): Promise<void> {
    return new Promise((resolve) => {
      let left = messages.length;
      const timer = setTimeout(resolve, CLOSE_WAIT_MS);
      const one = (): void => {
        left -= 1;
        if (left === 0) {
          clearTimeout(timer);
          resolve();
        }
      };
      if (left === 0) {
        clearTimeout(timer);
        return resolve();
      }
      for (const [topic, payload] of messages) this.broker.publish({ topic, payload, qos: 1, retain: true }, one);
    });
  }

  private follow(): void {
    if (this.closed) return;
    const now = this.broker.connected === true;
    if (now === this.up) return;
    this.up = now;
    if (now) {
      this.resend();
      this.events.up();
    } else {
      this.events.down();
    }
  }

  private send(topic: string, payload: string): void {
    this.broker.publish({ topic, payload, qos: 1, retain: true }, (err) => {
      if (err && !this.closed) this.events.failed(topic, err);
    });
  }
}
