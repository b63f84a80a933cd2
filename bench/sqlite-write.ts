/**
 * A minimal SQLite database writer for synthetic stores (the sessions bench makes an opencode database and a Codex
 * index of thousands of sessions without the sqlite3 shell): rowid tables only, UTF-8, page size 4096, one write.
 * Table b-trees are packed leaf pages under interior pages; payloads too large for a page continue on overflow pages.
 * No indexes: a table with a PRIMARY KEY or UNIQUE column (which SQLite indexes) is not written as SQLite would.
 * Not shipped. test/sessions-sqlite.test.ts reads what it writes (and checks it with sqlite3's integrity_check where
 * the shell is installed).
 */
import { writeFileSync } from "node:fs";

export type Value = null | number | string;
export interface TableData { name: string; sql: string; columns: string[]; rows: Value[][] }

const PAGE = 4096;
const U = PAGE; // no reserved bytes
const enc = new TextEncoder();

function varint(n: number): number[] {
  // SQLite varint of a non-negative integer below 2^53
  if (n < 0x80) return [n];
  const bytes: number[] = [];
  let v = BigInt(n);
  if (v >= 1n << 56n) {
    const out = [Number(v & 0xffn)];
    v >>= 8n;
    for (let i = 0; i < 8; i++) { out.unshift(Number(v & 0x7fn) | 0x80); v >>= 7n; }
    return out;
  }
  while (v > 0n) { bytes.unshift(Number(v & 0x7fn)); v >>= 7n; }
  for (let i = 0; i < bytes.length - 1; i++) bytes[i]! |= 0x80;
  return bytes;
}

function record(values: Value[]): Uint8Array {
  const types: number[] = [];
  const bodies: Uint8Array[] = [];
  for (const v of values) {
    if (v === null) { types.push(0); bodies.push(new Uint8Array(0)); }
    else if (typeof v === "number" && Number.isInteger(v)) {
      if (v === 0) { types.push(8); bodies.push(new Uint8Array(0)); }
      else if (v === 1) { types.push(9); bodies.push(new Uint8Array(0)); }
      else {
        const b = new Uint8Array(8);
        new DataView(b.buffer).setBigInt64(0, BigInt(v));
        types.push(6); bodies.push(b);
      }
    } else if (typeof v === "number") {
      const b = new Uint8Array(8);
      new DataView(b.buffer).setFloat64(0, v);
      types.push(7); bodies.push(b);
    } else {
      const b = enc.encode(v);
      types.push(b.length * 2 + 13); bodies.push(b);
    }
  }
  const typeBytes = types.flatMap(varint);
  let hsize = typeBytes.length + 1;
  if (varint(hsize).length > 1) hsize = typeBytes.length + varint(typeBytes.length + 2).length;
  const header = [...varint(hsize), ...typeBytes];
  const out = new Uint8Array(header.length + bodies.reduce((n, b) => n + b.length, 0));
  out.set(header, 0);
  let o = header.length;
  for (const b of bodies) { out.set(b, o); o += b.length; }
  return out;
}

class Writer {
  pages: Uint8Array[] = [new Uint8Array(PAGE)]; // page 1 (filled last)
  alloc(): number { this.pages.push(new Uint8Array(PAGE)); return this.pages.length; }
  page(n: number): Uint8Array { return this.pages[n - 1]!; }

  /** A leaf cell: payload size, rowid, local payload (+ the first overflow page). */
  leafCell(rowid: number, payload: Uint8Array): Uint8Array {
    const P = payload.length;
    const X = U - 35;
    let local = P;
    if (P > X) {
      const M = Math.floor(((U - 12) * 32) / 255) - 23;
      const K = M + ((P - M) % (U - 4));
      local = K <= X ? K : M;
    }
    const head = [...varint(P), ...varint(rowid)];
    const cell = new Uint8Array(head.length + local + (local < P ? 4 : 0));
    cell.set(head, 0);
    cell.set(payload.subarray(0, local), head.length);
    if (local < P) {
      // the overflow chain
      let first = 0, prev: Uint8Array | undefined;
      for (let off = local; off < P; off += U - 4) {
        const n = this.alloc();
        const pg = this.page(n);
        pg.set(payload.subarray(off, Math.min(P, off + U - 4)), 4);
        if (prev) new DataView(prev.buffer).setUint32(0, n);
        else first = n;
        prev = pg;
      }
      new DataView(cell.buffer).setUint32(head.length + local, first);
    }
    return cell;
  }

  /** Leaf pages packed with `cells` in order; returns each page and its last rowid. */
  leaves(cells: { cell: Uint8Array; rowid: number }[]): { page: number; rowid: number }[] {
    const out: { page: number; rowid: number }[] = [];
    let i = 0;
    do {
      const n = this.alloc();
      const pg = this.page(n);
      const dv = new DataView(pg.buffer);
      let end = PAGE, count = 0;
      while (i < cells.length && end - cells[i]!.cell.length >= 8 + (count + 1) * 2) {
        end -= cells[i]!.cell.length;
        pg.set(cells[i]!.cell, end);
        dv.setUint16(8 + count * 2, end);
        count++; i++;
      }
      if (count === 0 && i < cells.length) throw new Error("a cell larger than a page");
      pg[0] = 13;
      dv.setUint16(3, count);
      dv.setUint16(5, end);
      out.push({ page: n, rowid: count ? cells[i - 1]!.rowid : 0 });
    } while (i < cells.length);
    return out;
  }

  /** Interior pages over `children` (each: its cells point at all but the last child, the right-most pointer at it). */
  interior(children: { page: number; rowid: number }[]): { page: number; rowid: number }[] {
    const per = Math.floor((PAGE - 12) / (4 + 9 + 2)) + 1;
    const groups: { page: number; rowid: number }[][] = [];
    for (let i = 0; i < children.length; i += per) groups.push(children.slice(i, i + per));
    // no interior page with a right-most pointer alone
    if (groups.length > 1 && groups.at(-1)!.length === 1) groups.at(-1)!.unshift(groups.at(-2)!.pop()!);
    return groups.map((g) => {
      const n = this.alloc();
      const pg = this.page(n);
      const dv = new DataView(pg.buffer);
      let end = PAGE;
      g.slice(0, -1).forEach((c, k) => {
        const cell = new Uint8Array([0, 0, 0, 0, ...varint(c.rowid)]);
        new DataView(cell.buffer).setUint32(0, c.page);
        end -= cell.length;
        pg.set(cell, end);
        dv.setUint16(12 + k * 2, end);
      });
      pg[0] = 5;
      dv.setUint16(3, g.length - 1);
      dv.setUint16(5, end);
      dv.setUint32(8, g.at(-1)!.page);
      return { page: n, rowid: g.at(-1)!.rowid };
    });
  }

  /** A table b-tree of `rows`; returns its root page. */
  table(rows: Value[][]): number {
    let level = this.leaves(rows.map((r, k) => ({ cell: this.leafCell(k + 1, record(r)), rowid: k + 1 })));
    while (level.length > 1) level = this.interior(level);
    return level[0]!.page;
  }
}

/** Write `tables` as a new SQLite database at `path`. */
export function writeSqlite(path: string, tables: TableData[]): void {
  const w = new Writer();
  const schema = tables.map((t) => ({ t, root: w.table(t.rows) }));
  // page 1: the header, then sqlite_schema as one leaf (a few tables fit)
  const p1 = w.page(1);
  const cells = schema.map(({ t, root }, k) => ({ cell: w.leafCell(k + 1, record(["table", t.name, t.name, root, t.sql])), rowid: k + 1 }));
  const dv = new DataView(p1.buffer);
  let end = PAGE;
  cells.forEach((c, k) => { end -= c.cell.length; p1.set(c.cell, end); dv.setUint16(100 + 8 + k * 2, end); });
  if (100 + 8 + cells.length * 2 > end) throw new Error("the schema does not fit page 1");
  p1[100] = 13;
  dv.setUint16(103, cells.length);
  dv.setUint16(105, end);
  p1.set(enc.encode("SQLite format 3\0"), 0);
  dv.setUint16(16, PAGE);
  p1[18] = 1; p1[19] = 1; p1[20] = 0; p1[21] = 64; p1[22] = 32; p1[23] = 32;
  dv.setUint32(24, 1); // change counter
  dv.setUint32(28, w.pages.length);
  dv.setUint32(40, 1); // schema cookie
  dv.setUint32(44, 4); // schema format
  dv.setUint32(56, 1); // UTF-8
  dv.setUint32(92, 1); // version-valid-for
  dv.setUint32(96, 3045000);
  const out = new Uint8Array(w.pages.length * PAGE);
  w.pages.forEach((pg, i) => out.set(pg, i * PAGE));
  writeFileSync(path, out);
}
