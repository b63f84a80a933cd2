/**
 * The read-only SQLite reader (src/sessions/sqlite.ts) against files the sqlite3 shell wrote
 * (fixtures/sessions/sqlite/make.sh): every serial type, overflow chains, deep b-trees, columns added later, a WAL
 * over the main file; and damage: a torn WAL frame, a truncated file, a file that is not a database.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseCreateTable, SqliteError, SqliteReader } from "../src/sessions/sqlite.js";
import { writeSqlite } from "../bench/sqlite-write.js";
import { execFileSync, spawnSync } from "node:child_process";

const DIR = join(import.meta.dirname, "..", "fixtures", "sessions", "sqlite");
const json = (f: string) => JSON.parse(readFileSync(join(DIR, f), "utf8"));
const tmp = mkdtempSync(join(tmpdir(), "agentnorm-sqlite-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const hex = (b: unknown) => Buffer.from(b as Uint8Array).toString("hex").toUpperCase();

describe("SqliteReader", () => {
  it("reads every serial type as sqlite3 does (integers of 1–8 bytes, reals, text, blobs, NULL, 0 and 1)", () => {
    const db = SqliteReader.open(join(DIR, "rows.db"));
    const rows = [...db.rows("kinds")].map((r) => ({ ...r, b: hex(r.b) }));
    expect(rows).toEqual(json("rows.kinds.expected.json"));
    expect(db.pageSize).toBe(512);
    db.close();
  });

  it("follows overflow chains, walks a deep b-tree in rowid order, and fills columns added later with their default", () => {
    const db = SqliteReader.open(join(DIR, "rows.db"));
    const big = [...db.rows("big")];
    expect(big.map((r) => [r.id, (r.data as string).length])).toEqual([["a", 600], ["b", 5003], ["c", 20001]]);
    expect((big[2]!.data as string).endsWith("z✓")).toBe(true);
    const many = [...db.rows("many", ["k", "v", "added", "none_yet"])];
    const expected = [];
    for (let k = 1; k <= 3000; k++) if (k % 7 !== 0) expected.push({ k, v: `row ${k}`, added: "dflt", none_yet: null });
    expected.push({ k: 5000, v: "late", added: "set", none_yet: null });
    expect(many).toEqual(expected);
    expect(db.table("many")!.columns).toEqual(["k", "v", "added", "none_yet"]);
    db.close();
  });

  it("reads the committed frames of the WAL over the main file", () => {
    const db = SqliteReader.open(join(DIR, "wal.db"));
    expect([...db.rows("session")]).toEqual(json("wal.session.expected.json"));
    db.close();
  });

  it("a torn last WAL frame (bad checksum) leaves the state of the commit before it", () => {
    copyFileSync(join(DIR, "wal.db"), join(tmp, "torn.db"));
    const wal = readFileSync(join(DIR, "wal.db-wal"));
    const frame = 24 + 4096;
    const frames = (wal.length - 32) / frame;
    expect(Number.isInteger(frames)).toBe(true);
    wal[32 + (frames - 1) * frame + 24 + 100] ^= 0xff; // a byte of the last frame's page
    writeFileSync(join(tmp, "torn.db-wal"), wal);
    const db = SqliteReader.open(join(tmp, "torn.db"));
    const rows = [...db.rows("session")];
    // the UPDATE's commit is lost with its frame: the INSERT before it is kept
    expect(rows.map((r) => r.id)).toEqual(["ses_1", "ses_2"]);
    expect(rows[0]!.title).toBe("first");
    db.close();
  });

  it("damage is a SqliteError naming the file, never a crash", () => {
    writeFileSync(join(tmp, "text.db"), "not a database at all, just text that is long enough to have a header... ".repeat(3));
    expect(() => SqliteReader.open(join(tmp, "text.db"))).toThrow(/text\.db: not an SQLite 3 database/);
    expect(() => SqliteReader.open(join(tmp, "missing.db"))).toThrow(/missing\.db: cannot open: ENOENT/);
    copyFileSync(join(DIR, "rows.db"), join(tmp, "cut.db"));
    truncateSync(join(tmp, "cut.db"), 512 * 40);
    const db = SqliteReader.open(join(tmp, "cut.db"));
    let err: unknown;
    try { for (const _ of db.rows("many")); } catch (e) { err = e; }
    expect(err).toBeInstanceOf(SqliteError);
    expect((err as Error).message).toMatch(/cut\.db: /);
    expect((err as Error).message).not.toMatch(/\n/);
    db.close();
  });

  it("parses column names, the rowid column and defaults from CREATE TABLE text", () => {
    expect(parseCreateTable("CREATE TABLE `t` (`id` text PRIMARY KEY, `n` integer DEFAULT 0 NOT NULL, \"q\"\"x\" text DEFAULT 'a''b', CONSTRAINT `c` FOREIGN KEY (`id`) REFERENCES `u`(`id`))"))
      .toEqual({ columns: ["id", "n", 'q"x'], defaults: [null, 0, "a'b"], withoutRowid: false });
    expect(parseCreateTable("CREATE TABLE t (id INTEGER PRIMARY KEY, v)").rowidColumn).toBe(0);
    expect(parseCreateTable("CREATE TABLE t (a text, b text, PRIMARY KEY (a, b)) WITHOUT ROWID").withoutRowid).toBe(true);
  });

  it("reads what the bench's writer writes (thousands of rows, overflow chains, an empty table); sqlite3 finds it intact", () => {
    const rows = Array.from({ length: 5000 }, (_, i) => [`id${i}`, i * 1000, i % 3 === 0 ? "x".repeat(i % 10000) : `t${i}`, i % 5 ? null : 2.5, -i - 1]);
    const file = join(tmp, "written.db");
    writeSqlite(file, [
      { name: "t", sql: "CREATE TABLE t (id text, n integer, s text, f real, neg integer)", columns: ["id", "n", "s", "f", "neg"], rows },
      { name: "u", sql: "CREATE TABLE u (a text)", columns: ["a"], rows: [] },
    ]);
    const db = SqliteReader.open(file);
    expect([...db.rows("t")].map((r) => Object.values(r))).toEqual(rows);
    expect([...db.rows("u")]).toEqual([]);
    db.close();
    const shell = spawnSync("sqlite3", ["-version"]).status === 0;
    if (shell) expect(execFileSync("sqlite3", [file, "PRAGMA integrity_check; SELECT count(*), sum(length(s)) FROM t;"], { encoding: "utf8" })).toBe(`ok\n5000|${rows.reduce((n, r) => n + (r[2] as string).length, 0)}\n`);
    else console.warn("[sessions-sqlite] sqlite3 is not installed: the integrity check of the written file is skipped");
  });
});
