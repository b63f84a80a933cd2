/**
 * Reading session files without reading them whole: a bounded head (to list), whole lines up to a size taken when
 * the read began (to open a file still being written: up to its last whole line), and a JSON reader that takes the
 * scalar fields it is asked for from the start of a line too long to read whole (Codex's first rollout line holds its
 * instructions: tens of KB before the fields a listing needs... and after them).
 */
import { closeSync, openSync, readSync, type Stats, statSync } from "node:fs";
import { open as openAsync } from "node:fs/promises";

export interface Head {
  /** The whole lines of the head (without their newline). */
  lines: string[];
  /** The start of the first line the head does not hold whole (undefined when the head ends at a line end). */
  partial?: string;
  stat: Stats;
}

/** Up to `maxBytes` of the start of a file, cut into its whole lines and the start of the next one. */
export function readHead(path: string, maxBytes: number): Head {
  const fd = openSync(path, "r");
  try {
    const stat = statSync(path);
    const want = Math.min(maxBytes, stat.size);
    const buf = Buffer.allocUnsafe(want);
    let got = 0;
    while (got < want) {
      const n = readSync(fd, buf, got, want - got, got);
      if (n === 0) break;
      got += n;
    }
    const text = buf.toString("utf8", 0, got);
    const parts = text.split("\n");
    const last = parts.pop()!;
    // a head that reached the end of a file whose last line has no newline: that line is being written (or the
    // writer never ends lines); it is the partial line either way
    return { lines: parts.map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l)), ...(last !== "" ? { partial: last } : {}), stat };
  } finally {
    closeSync(fd);
  }
}

/**
 * The whole lines of the last `maxBytes` of a file (the first, cut, line of the window left out; a last line without
 * a newline too: it is being written).
 */
export function readTail(path: string, size: number, maxBytes: number): string[] {
  const fd = openSync(path, "r");
  try {
    const start = Math.max(0, size - maxBytes);
    const buf = Buffer.allocUnsafe(size - start);
    let got = 0;
    while (got < buf.length) {
      const n = readSync(fd, buf, got, buf.length - got, start + got);
      if (n === 0) break;
      got += n;
    }
    const lines = buf.toString("utf8", 0, got).split("\n");
    lines.pop(); // after the last newline: nothing, or a line being written
    if (start > 0) lines.shift();
    return lines.map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l));
  } finally {
    closeSync(fd);
  }
}

export interface LineRef { text: string; offset: number; length: number }

/**
 * The whole lines of a file from `from` up to `size` bytes (the size when the read began: what is appended meanwhile
 * is not read), in chunks. `onPartial` gets the bytes after the last newline, if any (a line being written).
 */
export async function* readLines(path: string, size: number, onPartial?: (bytes: number) => void): AsyncGenerator<LineRef> {
  const fh = await openAsync(path, "r");
  try {
    const chunk = Buffer.allocUnsafe(1 << 16);
    let carry: Buffer[] = [];
    let carryLen = 0;
    let lineStart = 0;
    for (let pos = 0; pos < size;) {
      const { bytesRead } = await fh.read(chunk, 0, Math.min(chunk.length, size - pos), pos);
      if (bytesRead === 0) break;
      let start = 0;
      for (let nl = chunk.indexOf(10, 0); nl !== -1 && nl < bytesRead; nl = chunk.indexOf(10, start)) {
        const piece = chunk.subarray(start, nl);
        const line = carryLen ? Buffer.concat([...carry, piece], carryLen + piece.length) : piece;
        let text = line.toString("utf8");
        if (text.endsWith("\r")) text = text.slice(0, -1);
        yield { text, offset: lineStart, length: carryLen + piece.length };
        carry = [];
        carryLen = 0;
        start = nl + 1;
        lineStart = pos + start;
      }
      if (start < bytesRead) {
        carry.push(Buffer.from(chunk.subarray(start, bytesRead)));
        carryLen += bytesRead - start;
      }
      pos += bytesRead;
    }
    if (carryLen > 0) onPartial?.(carryLen);
  } finally {
    await fh.close();
  }
}

/** The bytes of one line (`offset`, `length`) of an open file, as text. */
export function readLineAt(fd: number, offset: number, length: number): string {
  const buf = Buffer.allocUnsafe(length);
  let got = 0;
  while (got < length) {
    const n = readSync(fd, buf, got, length - got, offset + got);
    if (n === 0) break;
    got += n;
  }
  let text = buf.toString("utf8", 0, got);
  if (text.endsWith("\r")) text = text.slice(0, -1);
  return text;
}

class End extends Error {}
const END = new End();

/**
 * The scalar values (string, number, boolean, null) at `paths` (dot paths; array elements by index) in the start of
 * a JSON text that may be cut anywhere: what the text holds whole is read, the rest is absent. Stops reading once
 * every path is found. An object or array at a path is reported as `{}` / `[]` (it exists; its fields are not read).
 */
export function prefixScalars(text: string, paths: readonly string[]): Map<string, unknown> {
  const want = new Set(paths);
  const out = new Map<string, unknown>();
  const n = text.length;
  let i = 0;
  const ws = () => { while (i < n && text.charCodeAt(i) <= 32) i++; if (i >= n) throw END; };
  const stringEnd = (): number => {
    // i is at the opening quote; returns the index of the closing quote
    for (let j = i + 1; j < n; j++) {
      const c = text.charCodeAt(j);
      if (c === 92) j++;
      else if (c === 34) return j;
    }
    throw END;
  };
  const found = (path: string, v: unknown) => {
    if (want.has(path) && !out.has(path)) {
      out.set(path, v);
      if (out.size === want.size) throw END;
    }
  };
  // is anything wanted under this path? (a prefix test; skipping the rest of a value is still a scan)
  const wanted = (path: string) => { for (const p of want) if (p === path || p.startsWith(path + ".")) return true; return false; };
  const value = (path: string, depth: number): void => {
    if (depth > 256) throw END;
    ws();
    const c = text.charCodeAt(i);
    if (c === 123 || c === 91) {
      const obj = c === 123;
      if (want.has(path)) found(path, obj ? {} : []);
      const interesting = path === "" || wanted(path);
      i++;
      let index = 0;
      for (;;) {
        ws();
        const d = text.charCodeAt(i);
        if (d === (obj ? 125 : 93)) { i++; return; }
        if (d === 44) { i++; continue; }
        let key: string;
        if (obj) {
          if (d !== 34) throw END;
          const e = stringEnd();
          const raw = text.slice(i + 1, e);
          key = raw.includes("\\") ? JSON.parse(text.slice(i, e + 1)) : raw;
          i = e + 1;
          ws();
          if (text.charCodeAt(i) !== 58) throw END;
          i++;
        } else key = String(index++);
        const sub = path === "" ? key : `${path}.${key}`;
        if (interesting) value(sub, depth + 1);
        else value("\u0000", depth + 1); // not wanted: scanned, not recorded
      }
    }
    if (c === 34) {
      const e = stringEnd();
      if (want.has(path)) found(path, JSON.parse(text.slice(i, e + 1)));
      i = e + 1;
      return;
    }
    const m = /^(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(text.slice(i, i + 40));
    if (!m) throw END;
    if (i + m[0].length >= n) throw END; // a number cut short is not a number
    i += m[0].length;
    found(path, m[0] === "true" ? true : m[0] === "false" ? false : m[0] === "null" ? null : Number(m[0]));
  };
  try { value("", 0); } catch (e) { if (e !== END && !(e instanceof SyntaxError)) throw e; }
  return out;
}
