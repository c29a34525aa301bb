/**
 * The devices that msgs named lately (msg.deviceId). A node fed by a function that sends one msg per device on
 * each trigger reads every one of them per trigger: its daily cost is the trigger's times as many.
 */
export class AddressedDevices {
  /** Device id → when a msg last named it; in the order they were last named. */
  private readonly seen = new Map<string, number>();

  constructor(private readonly windowMs = 10 * 60_000, private readonly max = 10_000) {}

  note(deviceId: string, nowMs: number): void {
    this.seen.delete(deviceId);
    this.seen.set(deviceId, nowMs);
    if (this.seen.size > this.max) this.seen.delete(this.seen.keys().next().value as string);
  }

  /** Devices named within the window before `nowMs`. */
  count(nowMs: number): number {
    for (const [id, at] of this.seen) {
      if (nowMs - at <= this.windowMs) break;
      this.seen.delete(id);
    }
    return this.seen.size;
  }
}
