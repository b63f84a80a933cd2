/**
 * The bounded event queue between an agent and its one consumer. Nothing is dropped: past `highWater` queued
 * events the queue asks its source to pause (`onHigh`: the driver stops reading the agent's pipe or event stream,
 * so the agent blocks instead of our memory growing) and asks it to go on once the consumer has taken the queue
 * down to `lowWater` (`onLow`). What can still arrive while paused is what one read already held — bounded by the
 * reader's chunk, not by the agent.
 */
export interface QueueOptions {
  highWater?: number;
  lowWater?: number;
  onHigh?(): void;
  onLow?(): void;
}

export class EventQueue<T> implements AsyncIterable<T> {
  private items: T[] = [];
  private head = 0;
  private ended = false;
  private waiter: ((r: IteratorResult<T>) => void) | undefined;
  private high = false;
  private readonly highWater: number;
  private readonly lowWater: number;
  /** Most events held at once (a measure of how far the consumer lagged). */
  maxHeld = 0;
  private highWaiters: (() => void)[] = [];

  constructor(private readonly o: QueueOptions = {}) {
    this.highWater = Math.max(1, o.highWater ?? 1000);
    this.lowWater = Math.max(0, Math.min(this.highWater - 1, o.lowWater ?? Math.floor(this.highWater / 2)));
  }

  get size(): number {
    return this.items.length - this.head;
  }
  get isEnded(): boolean {
    return this.ended;
  }
  /** Is the source asked to pause? */
  get isHigh(): boolean {
    return this.high;
  }

  /** Resolves once the queue is below its high-water mark again (undefined when it already is). */
  belowHigh(): Promise<void> | undefined {
    if (!this.high) return undefined;
    return new Promise((r) => this.highWaiters.push(r));
  }

  /** Resolves the next time the queue reaches its high-water mark (at once when it is there). */
  reachesHigh(): Promise<void> {
    if (this.high) return Promise.resolve();
    return new Promise((r) => this.onHighOnce.push(r));
  }
  private onHighOnce: (() => void)[] = [];

  push(item: T): void {
    if (this.ended) return;
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = undefined;
      w({ value: item, done: false });
      return;
    }
    this.items.push(item);
    const n = this.size;
    if (n > this.maxHeld) this.maxHeld = n;
    if (!this.high && n >= this.highWater) {
      this.high = true;
      this.o.onHigh?.();
      const ws = this.onHighOnce;
      this.onHighOnce = [];
      for (const w of ws) w();
    }
  }

  /** No more items: the consumer's loop ends after the queued ones. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    if (this.waiter && this.size === 0) {
      const w = this.waiter;
      this.waiter = undefined;
      w({ value: undefined as never, done: true });
    }
    this.release();
  }

  private take(): T {
    const item = this.items[this.head];
    this.items[this.head++] = undefined as never;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    if (this.high && this.size <= this.lowWater) this.release();
    return item;
  }

  private release(): void {
    if (!this.high) return;
    this.high = false;
    const ws = this.highWaiters;
    this.highWaiters = [];
    for (const w of ws) w();
    this.o.onLow?.();
  }

  next(): Promise<IteratorResult<T>> {
    if (this.size > 0) return Promise.resolve({ value: this.take(), done: false });
    if (this.ended) return Promise.resolve({ value: undefined as never, done: true });
    return new Promise((r) => { this.waiter = r; });
  }

  /**
   * An iterator over the queue. Iterators share it (each event is taken once): a consumer may break out of a
   * `for await` loop and start another one later without losing what came in between.
   */
  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => this.next(),
      return: async () => ({ value: undefined as never, done: true }),
    };
  }
}
