/** Ordering: duplicate detection by sequence (one session's applied sequences). */


/**
 * sequence → eventId of every applied event of a session, for duplicate detection (an unbounded accumulator's; a
 * bounded one deletes entries and uses a Map). Same answers as a Map: sequences above the last one (the usual case)
 * are appended to two ascending arrays; any other goes to a Map, which shadows an equal one in the arrays. Only an
 * event at or below its session's last sequence (a duplicate or out of order) makes a lookup: a binary search.
 */
export class SeqLog {
  private readonly seqs: number[] = [];
  private readonly ids: string[] = [];
  private late: Map<number, string> | undefined = undefined;
  /** Entries of `seqs` shadowed by `late`. */
  private shadowed = 0;

  get size(): number {
    return this.seqs.length - this.shadowed + (this.late === undefined ? 0 : this.late.size);
  }

  get(seq: number): string | undefined {
    const late = this.late;
    if (late !== undefined && late.has(seq)) return late.get(seq);
    const i = this.indexOf(seq);
    return i < 0 ? undefined : this.ids[i];
  }

  set(seq: number, id: string): void {
    const n = this.seqs.length;
    // (NaN is never appended: the arrays stay ascending)
    if (n === 0 ? seq === seq : seq > this.seqs[n - 1]) {
      this.seqs.push(seq);
      this.ids.push(id);
      return;
    }
    const late = (this.late ??= new Map());
    if (!late.has(seq) && this.indexOf(seq) >= 0) this.shadowed++;
    late.set(seq, id);
  }

  private indexOf(seq: number): number {
    const a = this.seqs;
    let lo = 0;
    let hi = a.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const v = a[mid];
      if (v === seq) return mid;
      if (v < seq) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }
}

