/**
 * A read-only reader of SQLite database files, enough to scan the tables of an agent's store (opencode's
 * `opencode.db`, Codex's `state_*.sqlite`): the file format's table b-trees (rowid tables), records, overflow pages,
 * and the write-ahead log (`<db>-wal`), whose committed frames are read over the main file as SQLite itself would.
 * No SQL, no indexes, no writes, no locks: Node 20 has no `node:sqlite`, and agentnorm has no runtime dependency.
 *
 * What it does not do: WITHOUT ROWID tables (index b-trees), UTF-16 databases, and isolation from a writer — a
 * checkpoint that rewrites pages while a scan runs can show the scan a torn page; it then throws a SqliteError (a
 * problem of the listing, never a crash), and a retry reads the new state.
 *
 * Format reference: https://www.sqlite.org/fileformat2.html
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";

export class SqliteError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SqliteError";
  }
}

export type SqlValue = null | number | bigint | string | Uint8Array;

export interface SqliteTable {
  name: string;
  rootPage: number;
  /** The columns in declaration order (ALTER TABLE ADD COLUMN ones last). */
  columns: string[];
  /** The column that is the rowid (INTEGER PRIMARY KEY), if any: its value is the rowid, not in the record. */
  rowidColumn?: number;
  /** Column defaults (rows written before a column was added do not hold it). */
  defaults: SqlValue[];
  withoutRowid: boolean;
}

const HEADER = "SQLite format 3\0";
const WAL_MAGIC_LE = 0x377f0682;
const WAL_MAGIC_BE = 0x377f0683;
const MAX_DEPTH = 64;

export class SqliteReader {
  private fd: number;
  private walFd: number | undefined;
  readonly pageSize: number;
  private usable: number;
  /** Pages in the database (the WAL's last commit says, else the header). */
  readonly pageCount: number;
  /** page number → offset of its latest committed frame's page data in the WAL. */
  private walPages = new Map<number, number>();
  private cache = new Map<number, Uint8Array>();
  private schema: Map<string, SqliteTable> | undefined;
  private readonly decoder = new TextDecoder("utf-8");

  private constructor(readonly path: string) {
    try {
      this.fd = openSync(path, "r");
    } catch (e) {
      throw new SqliteError(`${path}: cannot open: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    try {
      const size = fstatSync(this.fd).size;
      const h = this.readAt(this.fd, 0, 100);
      if (size < 100 || this.decoder.decode(h.subarray(0, 16)) !== HEADER) throw new SqliteError(`${path}: not an SQLite 3 database`);
      const ps = (h[16]! << 8) | h[17]!;
      this.pageSize = ps === 1 ? 65536 : ps;
      if (this.pageSize < 512 || (this.pageSize & (this.pageSize - 1)) !== 0) throw new SqliteError(`${path}: page size ${this.pageSize} is not a power of two ≥ 512`);
      this.usable = this.pageSize - h[20]!;
      const encoding = be32(h, 56);
      if (encoding !== 0 && encoding !== 1) throw new SqliteError(`${path}: text encoding ${encoding === 2 ? "UTF-16le" : "UTF-16be"} is not read (UTF-8 only)`);
      let pages = Math.floor(size / this.pageSize);
      // the header's page count is valid when its change counter matches "version valid for"
      if (be32(h, 24) === be32(h, 92) && be32(h, 28) > 0) pages = be32(h, 28);
      const walPages = this.readWal();
      this.pageCount = walPages ?? pages;
    } catch (e) {
      this.close();
      throw e;
    }
  }

  /** Open `path` (and `path-wal`, when there is one). Throws a SqliteError whose message is one line naming the file. */
  static open(path: string): SqliteReader {
    return new SqliteReader(path);
  }

  close(): void {
    for (const fd of [this.fd, this.walFd]) {
      if (fd === undefined) continue;
      try { closeSync(fd); } catch { /* closed */ }
    }
    this.walFd = undefined;
    this.cache.clear();
  }

  private readAt(fd: number, offset: number, length: number): Uint8Array {
    const buf = new Uint8Array(length);
    let got = 0;
    while (got < length) {
      const n = readSync(fd, buf, got, length - got, offset + got);
      if (n === 0) break;
      got += n;
    }
    if (got < length) throw new SqliteError(`${this.path}: the file ends at byte ${offset + got} (expected ${offset + length}); is it being rewritten?`);
    return buf;
  }

  /**
   * The WAL's committed frames: every frame whose salts match the header and whose running checksum holds, up to the
   * last commit frame. Returns the database size the last commit states (undefined: no usable WAL).
   */
  private readWal(): number | undefined {
    let fd: number;
    try { fd = openSync(this.path + "-wal", "r"); } catch { return undefined; }
    this.walFd = fd;
    const size = fstatSync(fd).size;
    if (size < 32) return undefined;
    const h = this.readAt(fd, 0, 32);
    const magic = be32(h, 0);
    if (magic !== WAL_MAGIC_LE && magic !== WAL_MAGIC_BE) return undefined;
    const bigEndian = magic === WAL_MAGIC_BE;
    const pageSize = be32(h, 8);
    if (pageSize !== this.pageSize) return undefined;
    const salt1 = be32(h, 16), salt2 = be32(h, 20);
    let [s0, s1] = walChecksum(h, 0, 24, 0, 0, bigEndian);
    if (s0 !== be32(h, 24) || s1 !== be32(h, 28)) return undefined;
    const frame = 24 + pageSize;
    const pending = new Map<number, number>();
    let dbSize: number | undefined;
    // read in chunks of whole frames (a WAL can be large: no whole-file buffer)
    const perChunk = Math.max(1, Math.floor((1 << 20) / frame));
    for (let off = 32; off + frame <= size;) {
      const n = Math.min(perChunk, Math.floor((size - off) / frame));
      const chunk = this.readAt(fd, off, n * frame);
      for (let i = 0; i < n; i++, off += frame) {
        const f = i * frame;
        if (be32(chunk, f + 8) !== salt1 || be32(chunk, f + 12) !== salt2) return dbSize;
        [s0, s1] = walChecksum(chunk, f, 8, s0, s1, bigEndian);
        [s0, s1] = walChecksum(chunk, f + 24, pageSize, s0, s1, bigEndian);
        if (s0 !== be32(chunk, f + 16) || s1 !== be32(chunk, f + 20)) return dbSize;
        pending.set(be32(chunk, f), off + 24);
        const commit = be32(chunk, f + 4);
        if (commit !== 0) {
          for (const [p, o] of pending) this.walPages.set(p, o);
          pending.clear();
          dbSize = commit;
        }
      }
    }
    return dbSize;
  }

  /** Page `n` (1-based), from the WAL when it holds a committed frame of it. */
  page(n: number): Uint8Array {
    const hit = this.cache.get(n);
    if (hit) return hit;
    if (!Number.isInteger(n) || n < 1 || n > this.pageCount) throw new SqliteError(`${this.path}: page ${n} is out of range (1–${this.pageCount}); the file is damaged or being rewritten`);
    const wal = this.walPages.get(n);
    const p = wal !== undefined && this.walFd !== undefined ? this.readAt(this.walFd, wal, this.pageSize) : this.readAt(this.fd, (n - 1) * this.pageSize, this.pageSize);
    if (this.cache.size >= 256) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(n, p);
    return p;
  }

  /** The tables of the schema (sqlite_schema), by name. */
  tables(): Map<string, SqliteTable> {
    if (this.schema) return this.schema;
    const out = new Map<string, SqliteTable>();
    for (const { values } of this.scanTree(1)) {
      const [type, name, , rootpage, sql] = values;
      if (type !== "table" || typeof name !== "string" || typeof rootpage !== "number" || typeof sql !== "string") continue;
      out.set(name, { name, rootPage: rootpage, ...parseCreateTable(sql) });
    }
    this.schema = out;
    return out;
  }

  table(name: string): SqliteTable | undefined {
    return this.tables().get(name);
  }

  /**
   * Every row of a table, in rowid order, as an object of its columns (only `columns` when given). Streams page by
   * page: memory is bounded by the b-tree's depth and one row, not the table.
   */
  *rows(name: string, columns?: readonly string[]): Generator<Record<string, SqlValue>> {
    const t = this.table(name);
    if (!t) throw new SqliteError(`${this.path}: no table "${name}"`);
    if (t.withoutRowid) throw new SqliteError(`${this.path}: table "${name}" is WITHOUT ROWID, which this reader does not read`);
    const want = (columns ?? t.columns).map((c) => {
      const i = t.columns.indexOf(c);
      if (i < 0) throw new SqliteError(`${this.path}: table "${name}" has no column "${c}"`);
      return [c, i] as const;
    });
    const last = Math.max(-1, ...want.map(([, i]) => i));
    for (const { rowid, values } of this.scanTree(t.rootPage, last + 1)) {
      const row: Record<string, SqlValue> = {};
      for (const [c, i] of want) row[c] = i === t.rowidColumn ? rowid : i < values.length ? values[i]! : t.defaults[i] ?? null;
      yield row;
    }
  }

  /** The cells of a table b-tree, left to right: iterative (the stack is the tree's depth). */
  private *scanTree(root: number, maxColumns = Infinity): Generator<{ rowid: number; values: SqlValue[] }> {
    const stack: { page: number; cells: number[]; i: number; right: number }[] = [];
    const seen = new Set<number>();
    const push = (n: number) => {
      if (seen.has(n)) throw new SqliteError(`${this.path}: page ${n} is in the b-tree twice; the file is damaged or being rewritten`);
      if (stack.length >= MAX_DEPTH) throw new SqliteError(`${this.path}: b-tree deeper than ${MAX_DEPTH} pages; the file is damaged`);
      seen.add(n);
      const p = this.page(n);
      const h = n === 1 ? 100 : 0;
      const type = p[h]!;
      if (type !== 5 && type !== 13) throw new SqliteError(`${this.path}: page ${n} is not a table b-tree page (type ${type})`);
      const count = (p[h + 3]! << 8) | p[h + 4]!;
      const headerSize = type === 5 ? 12 : 8;
      const cells: number[] = [];
      for (let i = 0; i < count; i++) cells.push((p[h + headerSize + 2 * i]! << 8) | p[h + headerSize + 2 * i + 1]!);
      stack.push({ page: n, cells, i: 0, right: type === 5 ? be32(p, h + 8) : 0 });
      return type;
    };
    push(root);
    while (stack.length) {
      const top = stack[stack.length - 1]!;
      const p = this.page(top.page);
      const interior = top.right !== 0;
      if (top.i < top.cells.length) {
        const off = top.cells[top.i++]!;
        if (off < 8 || off >= this.pageSize) throw new SqliteError(`${this.path}: page ${top.page} has a cell outside the page`);
        if (interior) { push(be32(p, off)); continue; }
        const [size, a] = varint(p, off);
        const [rowid, b] = varint(p, a);
        const payload = this.payload(p, b, size);
        yield { rowid: Number(rowid), values: this.record(payload, maxColumns, top.page) };
      } else {
        stack.pop();
        if (interior) push(top.right);
      }
    }
  }

  /** A cell's payload: the local part, then the overflow chain. */
  private payload(p: Uint8Array, at: number, size: bigint): Uint8Array {
    const P = Number(size);
    const U = this.usable;
    const X = U - 35;
    if (P <= X) {
      if (at + P > p.length) throw new SqliteError(`${this.path}: a cell runs past its page`);
      return p.subarray(at, at + P);
    }
    const M = Math.floor(((U - 12) * 32) / 255) - 23;
    const K = M + ((P - M) % (U - 4));
    const local = K <= X ? K : M;
    const out = new Uint8Array(P);
    out.set(p.subarray(at, at + local), 0);
    let got = local;
    let next = be32(p, at + local);
    let hops = 0;
    while (got < P) {
      if (next === 0 || ++hops > this.pageCount) throw new SqliteError(`${this.path}: an overflow chain ends early; the file is damaged or being rewritten`);
      const o = this.page(next);
      const n = Math.min(U - 4, P - got);
      out.set(o.subarray(4, 4 + n), got);
      got += n;
      next = be32(o, 0);
    }
    return out;
  }

  /** A record's values (the first `maxColumns`). */
  private record(r: Uint8Array, maxColumns: number, page: number): SqlValue[] {
    const [hsize, h0] = varint(r, 0);
    const headerEnd = Number(hsize);
    if (headerEnd > r.length) throw new SqliteError(`${this.path}: a record on page ${page} is damaged`);
    const values: SqlValue[] = [];
    let h = h0;
    let body = headerEnd;
    while (h < headerEnd && values.length < maxColumns) {
      const [st, nh] = varint(r, h);
      h = nh;
      const t = Number(st);
      let len: number;
      let v: SqlValue;
      switch (t) {
        case 0: len = 0; v = null; break;
        case 1: len = 1; v = (r[body]! << 24) >> 24; break;
        case 2: len = 2; v = ((r[body]! << 8) | r[body + 1]!) << 16 >> 16; break;
        case 3: len = 3; v = ((r[body]! << 16) | (r[body + 1]! << 8) | r[body + 2]!) << 8 >> 8; break;
        case 4: len = 4; v = be32(r, body) | 0; break;
        case 5: len = 6; v = intBE(r, body, 6); break;
        case 6: len = 8; v = intBE(r, body, 8); break;
        case 7: len = 8; v = new DataView(r.buffer, r.byteOffset + body, 8).getFloat64(0); break;
        case 8: len = 0; v = 0; break;
        case 9: len = 0; v = 1; break;
        default:
          if (t < 12) throw new SqliteError(`${this.path}: a record on page ${page} has the reserved serial type ${t}`);
          len = (t - (t % 2 === 0 ? 12 : 13)) / 2;
          if (body + len > r.length) throw new SqliteError(`${this.path}: a record on page ${page} is damaged`);
          v = t % 2 === 0 ? r.slice(body, body + len) : this.decoder.decode(r.subarray(body, body + len));
      }
      body += len;
      values.push(v);
    }
    return values;
  }
}

function be32(b: Uint8Array, o: number): number {
  return ((b[o]! << 24) | (b[o + 1]! << 16) | (b[o + 2]! << 8) | b[o + 3]!) >>> 0;
}

/** A big-endian two's-complement integer of `n` bytes (6 or 8): a number when exact, else a bigint. */
function intBE(b: Uint8Array, o: number, n: number): number | bigint {
  // the high part as a signed number, the low 32 bits unsigned: exact while the high part is within 2^21
  const hi = n === 8 ? (be32(b, o) | 0) : ((b[o]! << 24) >> 16) | b[o + 1]!;
  const lo = be32(b, o + n - 4);
  if (hi >= -(1 << 21) && hi < 1 << 21) return hi * 4294967296 + lo;
  let v = 0n;
  for (let i = 0; i < n; i++) v = (v << 8n) | BigInt(b[o + i]!);
  if (b[o]! & 0x80) v -= 1n << BigInt(8 * n);
  return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
}

/** SQLite's varint (1–9 bytes, big-endian, 7 bits per byte; the ninth byte gives 8): [value, next offset]. */
function varint(b: Uint8Array, o: number): [bigint, number] {
  let v = 0n;
  for (let i = 0; i < 8; i++) {
    const c = b[o + i];
    if (c === undefined) throw new SqliteError("a varint runs past its page");
    v = (v << 7n) | BigInt(c & 0x7f);
    if ((c & 0x80) === 0) return [v, o + i + 1];
  }
  const c = b[o + 8];
  if (c === undefined) throw new SqliteError("a varint runs past its page");
  return [(v << 8n) | BigInt(c), o + 9];
}

/** The WAL checksum over `len` bytes (a multiple of 8) from `o`, continuing s0/s1. */
function walChecksum(b: Uint8Array, o: number, len: number, s0: number, s1: number, bigEndian: boolean): [number, number] {
  const v = new DataView(b.buffer, b.byteOffset + o, len);
  for (let i = 0; i < len; i += 8) {
    s0 = (s0 + v.getUint32(i, !bigEndian) + s1) >>> 0;
    s1 = (s1 + v.getUint32(i + 4, !bigEndian) + s0) >>> 0;
  }
  return [s0, s1];
}

/**
 * Column names, the INTEGER PRIMARY KEY column and DEFAULT literals from a CREATE TABLE statement (as SQLite stores
 * it: ALTER TABLE ADD COLUMN appends to the text). Constraints (CONSTRAINT, PRIMARY KEY (…), FOREIGN KEY, UNIQUE,
 * CHECK) are not columns.
 */
export function parseCreateTable(sql: string): Omit<SqliteTable, "name" | "rootPage"> {
  const open = sql.indexOf("(");
  const close = sql.lastIndexOf(")");
  const body = open >= 0 && close > open ? sql.slice(open + 1, close) : "";
  const tail = close >= 0 ? sql.slice(close + 1) : "";
  const parts: string[] = [];
  let depth = 0, quote = "", cur = "";
  for (const ch of body) {
    if (quote) { cur += ch; if (ch === quote) quote = ""; continue; }
    if (ch === "'" || ch === '"' || ch === "`" || ch === "[") { quote = ch === "[" ? "]" : ch; cur += ch; continue; }
    if (ch === "(") depth++;
    if (ch === ")") depth--;
    if (ch === "," && depth === 0) { parts.push(cur); cur = ""; continue; }
    cur += ch;
  }
  if (cur.trim()) parts.push(cur);
  const columns: string[] = [];
  const defaults: SqlValue[] = [];
  let rowidColumn: number | undefined;
  for (const raw of parts) {
    const def = raw.trim();
    if (/^(constraint|primary\s+key|foreign\s+key|unique|check)\b/i.test(def)) continue;
    const m = /^(?:"((?:[^"]|"")*)"|`([^`]*)`|\[([^\]]*)\]|'((?:[^']|'')*)'|([^\s(]+))\s*(.*)$/s.exec(def);
    if (!m) continue;
    const name = m[1]?.replace(/""/g, '"') ?? m[2] ?? m[3] ?? m[4]?.replace(/''/g, "'") ?? m[5]!;
    const rest = m[6] ?? "";
    if (/^integer\b/i.test(rest) && /\bprimary\s+key\b/i.test(rest) && !/\bdesc\b/i.test(rest)) rowidColumn = columns.length;
    const d = /\bdefault\s+(?:'((?:[^']|'')*)'|(-?\d+(?:\.\d+)?)|(null)\b|\(([^)]*)\))/i.exec(rest);
    defaults.push(d ? (d[1] !== undefined ? d[1].replace(/''/g, "'") : d[2] !== undefined ? Number(d[2]) : null) : null);
    columns.push(name);
  }
  return { columns, defaults, ...(rowidColumn !== undefined ? { rowidColumn } : {}), withoutRowid: /\bwithout\s+rowid\b/i.test(tail) };
}
