import type { NodeStatus } from 'node-red';
import type { RetryInfo } from '../../api/index.js';

/**
 * A node's yellow "retrying (n)…" while its requests are retried (an outage, 5xx, a 429). When the
 * last retried request ends, the status shown before comes back, unless the node replaced the retry
 * status meanwhile (with its result or its error).
 */
export class RetryStatus {
  private requests = 0;
  private before?: NodeStatus;
  private showing?: NodeStatus;

  constructor(
    private readonly text: (attempt: number) => string,
    private readonly shown: () => NodeStatus | undefined,
    private readonly show: (status: NodeStatus) => void,
  ) {}

  readonly onRetry = (retry: RetryInfo): void => {
    if (retry.kind === 'retrying') {
      if (retry.attempt === 1 && this.requests++ === 0) this.before = this.shown();
      this.showing = { fill: 'yellow', shape: 'ring', text: this.text(retry.attempt) };
      this.show(this.showing);
      return;
    }
    this.requests = Math.max(0, this.requests - 1);
    if (this.requests > 0) return;
    if (this.shown() === this.showing) this.show(this.before ?? {});
    this.before = undefined;
    this.showing = undefined;
  };
}
