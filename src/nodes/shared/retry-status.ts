import type { NodeStatus } from 'node-red';
import type { RetryInfo } from '../../api/index.js';

/**
 * A node's yellow status while its own requests are retried (an outage, 5xx, a 429: "retrying (n)…")
 * or wait because the key is paused after a 429 ("rate limited: waiting"). When the last such request
 * ends, the status shown before comes back, unless the node replaced the yellow status meanwhile (with
 * its result or its error).
 */
export class RetryStatus {
  private retrying = 0;
  private attempt = 0;
  private waiting = 0;
  private before?: NodeStatus;
  private showing?: NodeStatus;

  constructor(
    private readonly text: (attempt: number) => string,
    private readonly waitText: () => string,
    private readonly shown: () => NodeStatus | undefined,
    private readonly show: (status: NodeStatus) => void,
  ) {}

  readonly onRetry = (retry: RetryInfo): void => {
    if (retry.kind === 'retrying') {
      if (retry.attempt === 1) this.retrying++;
      this.attempt = retry.attempt;
      this.update(true);
    } else if (retry.kind === 'settled') {
      this.retrying = Math.max(0, this.retrying - 1);
      this.update(false);
    } else {
      this.waiting = retry.waiting ? this.waiting + 1 : Math.max(0, this.waiting - 1);
      this.update(retry.waiting);
    }
  };

  /** `news`: something new to tell (a retry, a wait), shown even if the node replaced the yellow status. */
  private update(news: boolean): void {
    if (this.retrying === 0 && this.waiting === 0) {
      if (this.showing && this.shown() === this.showing) this.show(this.before ?? {});
      this.before = undefined;
      this.showing = undefined;
      return;
    }
    if (!this.showing) this.before = this.shown();
    const text = this.retrying > 0 ? this.text(this.attempt) : this.waitText();
    if (!news && (this.shown() !== this.showing || this.showing?.text === text)) return;
    this.showing = { fill: 'yellow', shape: 'ring', text };
    this.show(this.showing);
  }
}
