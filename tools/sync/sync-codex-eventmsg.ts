/**
 * Maintainer script (`npx tsx tools/sync/sync-codex-eventmsg.ts [--version 0.171.0] [--shapes-from 0.114.0]`):
 * regenerate schemas/upstream/codex-eventmsg/<version>/ — the JSON Schemas of Codex's internal `EventMsg`
 * (`{id, msg}` in TUI logs, `{type:"event_msg", payload}` in rollout files) and of the rollout file line.
 *
 * Codex stopped emitting EventMsg.json from `codex app-server generate-json-schema` after 0.114.0, so:
 *  1. @openai/codex@<shapes-from> and @openai/codex@<version> are installed into a temporary folder;
 *  2. `generate-json-schema` of <shapes-from> gives the EventMsg variant shapes, that of <version> gives
 *     ResponseItem (the `response_item` rollout payload);
 *  3. the <version> binary itself is asked, fully offline, which `type` tags its deserializer accepts:
 *     a synthetic rollout file with an unknown tag is written into a throwaway CODEX_HOME, `codex app-server`
 *     (inside `unshare -rn`, RUST_LOG=trace) is asked to `thread/read` it, and serde's
 *     "unknown variant …, expected one of …" log line lists the tags (EventMsg and RolloutItem);
 *  4. for every tag the same oracle learns which fields the deserializer *requires* and their types, by
 *     feeding it payloads and reading serde's "missing field `x`" / "invalid type: null, expected …" errors.
 *     This gives the real fields of tags new since <shapes-from>, of the rollout payloads that no generator
 *     publishes, and a drift report for the carried-over shapes. Optional fields cannot be seen this way.
 *
 * It writes EventMsg.json, LegacyEventMsg.json, RolloutLine.json, PROVENANCE.md (with sha256 of each file)
 * and LICENSE. CI never runs this: the output is committed.
 *
 * Flags for maintainers who already have the binaries: `--bin <path>` / `--shapes-bin <path>` skip the
 * npm install of that version (the binary's `--version` must still report the requested version).
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { codexBinary, isMain, listFiles, npmInstall, sha256Rows } from "./sync-util.ts";

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type JsonObject = { [k: string]: Json };
type Schema = { [k: string]: unknown };

const root = resolve(fileURLToPath(import.meta.url), "../../..");
const args = process.argv.slice(2);
const flag = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const version = flag("--version") ?? "0.171.0";
const shapesFrom = flag("--shapes-from") ?? "0.114.0";

export const canUnshare = process.platform === "linux" && spawnSync("unshare", ["-rn", "true"]).status === 0;
const UUID = "0195f3a0-0000-7000-8000-000000000001";
const TS = "2025-01-01T00:00:00.000Z";
const SENTINEL = "zz_agentnorm_sentinel";
const PARSE_ERROR = "failed to parse rollout line: ";

// ---------------------------------------------------------------------------------------------------------------
// Installing and running the binaries

function install(work: string, v: string): string {
  const dir = join(work, `codex-${v}`);
  mkdirSync(dir);
  console.error(`installing @openai/codex@${v} into ${dir} …`);
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "codex-eventmsg-sync", private: true }));
  npmInstall(dir, [`@openai/codex@${v}`]);
  const bin = codexBinary(dir);
  if (!bin) throw new Error(`no native codex binary was installed for this platform (@openai/codex@${v})`);
  return bin;
}

function sandboxEnv(home: string): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? "", HOME: home, CODEX_HOME: home, NO_COLOR: "1" };
}

function run(bin: string, argv: string[], env: NodeJS.ProcessEnv, cwd: string) {
  const cmd = [bin, ...argv];
  return canUnshare
    ? spawnSync("unshare", ["-rn", ...cmd], { env, cwd, encoding: "utf8", maxBuffer: 1 << 28 })
    : spawnSync(cmd[0], cmd.slice(1), { env, cwd, encoding: "utf8", maxBuffer: 1 << 28 });
}

function reportedVersion(bin: string, work: string): string {
  const home = mkdtempSync(join(work, "home-"));
  return execFileSync(bin, ["--version"], { env: sandboxEnv(home), cwd: work }).toString().trim();
}

function generateJsonSchema(bin: string, work: string, out: string): void {
  const home = mkdtempSync(join(work, "home-"));
  const r = run(bin, ["app-server", "generate-json-schema", "--out", out], sandboxEnv(home), work);
  if (r.status !== 0) throw new Error(`generate-json-schema failed (exit ${r.status}): ${r.stderr}`);
}

/**
 * The deserializer oracle: writes `lines` (each followed by a sentinel line with an unknown EventMsg tag) into a
 * rollout file, has `codex app-server` read it, and returns for each line serde's error, or null if it parsed.
 */
export class Oracle {
  runs = 0;
  constructor(private bin: string, private work: string) {}

  async parse(lines: Json[]): Promise<(string | null)[]> {
    const home = mkdtempSync(join(this.work, "oracle-"));
    try {
      const sessions = join(home, "sessions/2025/01/01");
      mkdirSync(sessions, { recursive: true });
      const meta = { timestamp: TS, type: "session_meta", payload: { id: UUID, timestamp: TS, cwd: "/tmp", originator: "agentnorm-probe", cli_version: "0", instructions: null } };
      const sentinel = { timestamp: TS, type: "event_msg", payload: { type: SENTINEL } };
      const body = [meta, ...lines.flatMap((l) => [l, sentinel])].map((l) => JSON.stringify(l)).join("\n") + "\n";
      writeFileSync(join(sessions, `rollout-2025-01-01T00-00-00-${UUID}.jsonl`), body);
      const log = await this.appServerRead(home);
      this.runs++;
      const errors = log.filter((l) => l.includes(PARSE_ERROR)).map((l) => l.slice(l.indexOf(PARSE_ERROR) + PARSE_ERROR.length));
      const out: (string | null)[] = [];
      let pending: string | null = null;
      for (const e of errors) {
        if (e.startsWith(`unknown variant \`${SENTINEL}\``)) {
          out.push(pending);
          pending = null;
        } else if (pending !== null) {
          throw new Error(`oracle: two parse errors for one line: ${pending} / ${e}`);
        } else pending = e;
      }
      if (out.length !== lines.length) throw new Error(`oracle: expected ${lines.length} sentinels in the app-server log, saw ${out.length}`);
      return out;
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }

  /** Tags the deserializer accepts at the EventMsg level and at the rollout-line level. */
  async tags(): Promise<{ eventMsg: string[]; rolloutItem: string[] }> {
    const [e, r] = await this.parse([
      { timestamp: TS, type: "event_msg", payload: { type: "zz_unknown_probe" } },
      { timestamp: TS, type: "zz_unknown_line", payload: {} },
    ]);
    const list = (err: string | null) => {
      if (!err || !/^unknown variant `zz_unknown_/.test(err)) throw new Error(`tag probe: unexpected answer ${err}`);
      return backticked(err.slice(err.indexOf(","))).filter((t) => t !== SENTINEL);
    };
    return { eventMsg: list(e), rolloutItem: list(r) };
  }

  private appServerRead(home: string): Promise<string[]> {
    const env = { ...sandboxEnv(home), RUST_LOG: "trace" };
    const cmd = canUnshare ? ["unshare", "-rn", this.bin, "app-server"] : [this.bin, "app-server"];
    return new Promise((resolveLog, reject) => {
      const child = spawn(cmd[0], cmd.slice(1), { env, cwd: this.work, stdio: ["pipe", "pipe", "pipe"] });
      const log: string[] = [];
      let errBuf = "";
      let outBuf = "";
      let answered = false;
      const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
      child.stderr.setEncoding("utf8").on("data", (d: string) => {
        errBuf += d;
        const parts = errBuf.split("\n");
        errBuf = parts.pop() ?? "";
        log.push(...parts);
      });
      child.stdout.setEncoding("utf8").on("data", (d: string) => {
        outBuf += d;
        const parts = outBuf.split("\n");
        outBuf = parts.pop() ?? "";
        for (const p of parts) {
          try {
            const m = JSON.parse(p);
            if (m && m.id === 2 && !answered) {
              answered = true;
              child.stdin.end();
            }
          } catch {
            // not JSON: ignore
          }
        }
      });
      child.on("error", reject);
      child.on("close", () => {
        clearTimeout(timer);
        if (errBuf) log.push(errBuf);
        if (!answered) reject(new Error(`app-server gave no answer to thread/read; log tail:\n${log.slice(-20).join("\n")}`));
        else resolveLog(log);
      });
      const requests = [
        { id: 1, method: "initialize", params: { clientInfo: { name: "agentnorm-probe", version: "0" } } },
        { method: "initialized" },
        { id: 2, method: "thread/read", params: { threadId: UUID, includeTurns: true } },
      ];
      child.stdin.write(requests.map((r) => JSON.stringify(r)).join("\n") + "\n");
    });
  }
}

function backticked(s: string): string[] {
  return [...s.matchAll(/`([^`]*)`/g)].map((m) => m[1]);
}

// ---------------------------------------------------------------------------------------------------------------
// Learning required fields from the deserializer

/** Batches the checks of all concurrent discoveries into one app-server run per round. */
class Batcher {
  private queue: { line: Json; resolve: (e: string | null) => void }[] = [];
  rounds = 0;
  checks = 0;
  constructor(private oracle: Oracle, private maxRounds: number) {}

  check(line: Json): Promise<string | null> {
    return new Promise((res) => this.queue.push({ line, resolve: res }));
  }

  async drive<T>(work: Promise<T>): Promise<T> {
    let done = false;
    let failed: unknown;
    const w = work.then(
      (v) => ((done = true), v),
      (e) => {
        done = true;
        failed = e;
        return undefined as T;
      },
    );
    for (;;) {
      await new Promise((r) => setImmediate(r));
      if (done) break;
      if (this.queue.length === 0) throw new Error("discovery stalled with no pending check");
      const batch = this.queue.splice(0);
      if (this.rounds >= this.maxRounds) {
        for (const b of batch) b.resolve("agentnorm: probe round budget exhausted");
        continue;
      }
      this.rounds++;
      const keys = [...new Set(batch.map((b) => JSON.stringify(b.line)))];
      this.checks += keys.length;
      const answers = await this.oracle.parse(keys.map((k) => JSON.parse(k) as Json));
      const byKey = new Map(keys.map((k, i) => [k, answers[i]]));
      for (const b of batch) b.resolve(byKey.get(JSON.stringify(b.line)) ?? null);
      process.stderr.write(`  probe round ${this.rounds}: ${keys.length} lines\n`);
    }
    if (failed) throw failed;
    return w;
  }
}

const MISSING = /^missing field `([^`]+)`$/;
const NULL_TYPE = /^invalid type: null, expected (.+)$/;
const MAX_DEPTH = 3;

interface Learned {
  schema: Schema;
  /** A value the deserializer accepted; undefined when none was found (discovery stopped there). */
  value?: Json;
  /** The error of the whole line once `value` is in place (null: the line parsed). */
  next: string | null;
  partial?: string;
}

interface LearnedStruct {
  properties: Record<string, Schema>;
  required: string[];
  value?: JsonObject;
  next: string | null;
  partial?: string;
}

/** Did the line get past field `field` (it parsed, or the deserializer now misses another field)? */
function accepted(err: string | null, field: string): boolean {
  if (err === null) return true;
  const m = MISSING.exec(err);
  return !!m && m[1] !== field;
}

/** Learn the required fields of the struct that `build` places in a line. */
async function learnStruct(b: Batcher, build: (o: JsonObject) => Json, depth: number, first?: string | null): Promise<LearnedStruct> {
  const obj: JsonObject = {};
  const properties: Record<string, Schema> = {};
  const required: string[] = [];
  let err = first !== undefined ? first : await b.check(build(obj));
  for (let i = 0; i < 80; i++) {
    if (err === null) return { properties, required, value: { ...obj }, next: null };
    const m = MISSING.exec(err);
    if (!m) return { properties, required, next: err, partial: err };
    const f = m[1];
    if (Object.hasOwn(obj, f)) return { properties, required, next: err, partial: `missing field ${f} although present` };
    // Is the field this struct's, or an enclosing struct's? Setting it here changes nothing in the latter case.
    let withNull = await b.check(build({ ...obj, [f]: null }));
    if (withNull !== null && withNull.startsWith(`unknown field \`${f}\``)) {
      // The struct denies unknown fields (e.g. std Duration): the field is an enclosing struct's.
      return { properties, required, value: { ...obj }, next: err };
    }
    if (withNull === err) {
      // Either the field is an enclosing struct's, or this field's deserializer treats null as absent.
      const others = await Promise.all(ANY_CANDIDATES.map((c) => b.check(build({ ...obj, [f]: c }))));
      if (!others.some((e) => e !== err)) {
        if (depth === 0) return { properties, required, next: err, partial: `cannot place missing field ${f}` };
        return { properties, required, value: { ...obj }, next: err };
      }
      const name = others.map((e) => /untagged enum (\S+)$/.exec(e ?? "")?.[1]).find(Boolean);
      withNull = name ? `data did not match any variant of untagged enum ${name}` : `null is treated as a missing value`;
    }
    required.push(f);
    const r = await learnValue(b, f, withNull, (v) => build({ ...obj, [f]: v }), depth);
    properties[f] = r.schema;
    if (r.value === undefined) return { properties, required, next: r.next, partial: `${f}: ${r.partial ?? "no accepted value"}` };
    obj[f] = r.value;
    err = r.next;
  }
  return { properties, required, next: err, partial: "too many fields" };
}

const UNSIGNED = /^(u8|u16|u32|u64|u128|usize)$/;
const SIGNED = /^(i8|i16|i32|i64|i128|isize)$/;
const STRING_CANDIDATES: [string, string | undefined][] = [
  ["", undefined],
  [UUID, "a UUID"],
  ["/tmp", "an absolute path"],
  ["file:///tmp", "a URI"],
  ["/root", "an agent path"],
  ["2025-01-01T00:00:00Z", "an RFC 3339 timestamp"],
  ["0", "a numeric string"],
];
/** Values tried, in parallel, for a field whose type the deserializer does not name (untagged enums, custom types). */
const ANY_CANDIDATES: Json[] = ["", 0, false, [], {}, UUID, "/tmp", "file:///tmp"];
/**
 * Hand-added seeds: values known to be accepted by types whose deserializer gives no usable error (serde untagged
 * enums swallow the errors of their variants). A seed only lets the probe get past the field; the binary still has
 * to accept it, and the field's schema stays a permissive object.
 *  - PermissionProfileDe: untagged over a `type`-tagged profile and a legacy `{network?, file_system?}` struct
 *    (openai/codex codex-rs/protocol/src/models.rs); `{"type": "disabled"}` is the tagged "no sandbox" profile.
 */
const SEEDS: Record<string, Json[]> = {
  PermissionProfileDe: [{ type: "disabled" }, { network: null }],
};

/** Learn the type of a required field from the error its `null` value produced (`nullErr`). */
async function learnValue(b: Batcher, field: string, nullErr: string | null, set: (v: Json) => Json, depth: number): Promise<Learned> {
  if (accepted(nullErr, field)) return { schema: { description: "Accepts null (probably any JSON value)." }, value: null, next: nullErr };
  const untagged = /^data did not match any variant of untagged enum (\S+)$/.exec(nullErr ?? "");
  if (untagged) return learnUntagged(b, field, set, depth, untagged[1]);
  const nm = NULL_TYPE.exec(nullErr ?? "");
  if (!nm) {
    // A custom deserializer with its own message (e.g. "session metadata must be an object"): try plain values.
    return learnUntagged(b, field, set, depth, undefined, nullErr ?? "");
  }
  const expected = nm[1];
  const tryValue = async (schema: Schema, v: Json): Promise<Learned> => {
    const e = await b.check(set(v));
    return accepted(e, field) ? { schema, value: v, next: e } : { schema, next: e, partial: `${JSON.stringify(v)} rejected: ${e}` };
  };
  if (UNSIGNED.test(expected)) return tryValue({ type: "integer", minimum: 0 }, 0);
  if (SIGNED.test(expected)) return tryValue({ type: "integer" }, 0);
  if (/^f(32|64)$/.test(expected)) return tryValue({ type: "number" }, 0);
  if (expected === "a boolean") return tryValue({ type: "boolean" }, false);
  if (expected === "a map") return tryValue({ type: "object" }, {});
  if (expected === "a sequence") {
    const itemSet = (v: Json) => set([v]);
    const itemErr = await b.check(itemSet(null));
    let items: Schema = {};
    if (!accepted(itemErr, field)) items = depth < MAX_DEPTH ? (await learnValue(b, `${field}[]`, itemErr, itemSet, depth + 1)).schema : itemSchema(itemErr);
    return tryValue({ type: "array", items }, []);
  }
  const struct = /^struct (\S+)$/.exec(expected);
  if (struct) {
    const name = struct[1];
    if (depth >= MAX_DEPTH) return { schema: { type: "object", description: `Rust struct \`${name}\` (not probed further).` }, next: nullErr, partial: "depth limit" };
    const s = await learnStruct(b, set, depth + 1);
    return {
      schema: structSchema(s, `Rust struct \`${name}\`.`),
      value: s.value,
      next: s.next,
      partial: s.partial,
    };
  }
  if (expected === "string or map" || expected === "variant identifier" || /^enum \S+$/.test(expected)) return learnExternalEnum(b, field, set, expected, depth);
  const internal = /^internally tagged enum (\S+)$/.exec(expected);
  if (internal) return learnInternalEnum(b, field, set, depth, internal[1]);
  if (/string/.test(expected)) {
    const answers = await Promise.all(STRING_CANDIDATES.map(([c]) => b.check(set(c))));
    const i = answers.findIndex((e) => accepted(e, field));
    if (i === 0) return { schema: { type: "string" }, value: "", next: answers[0] };
    if (i > 0) {
      const [c, what] = STRING_CANDIDATES[i];
      return { schema: { type: "string", description: `Not any string: the empty string is rejected (“${answers[0]}”); ${what} such as \`${c}\` is accepted.` }, value: c, next: answers[i] };
    }
    return { schema: { type: "string", description: `Deserializer expects ${expected}; the empty string is rejected (“${answers[0]}”).` }, next: nullErr, partial: `no string candidate accepted: ${answers[0]}` };
  }
  return { schema: { description: `Deserializer expects ${expected} (not probed).` }, next: nullErr, partial: `unhandled expectation: ${expected}` };
}

function itemSchema(err: string | null): Schema {
  const nm = NULL_TYPE.exec(err ?? "");
  if (!nm) return {};
  const e = nm[1];
  if (UNSIGNED.test(e)) return { type: "integer", minimum: 0 };
  if (SIGNED.test(e)) return { type: "integer" };
  if (/^f(32|64)$/.test(e)) return { type: "number" };
  if (e === "a boolean") return { type: "boolean" };
  if (e === "a sequence") return { type: "array" };
  if (e === "a map") return { type: "object" };
  const s = /^struct (\S+)$/.exec(e);
  if (s) return { type: "object", description: `Rust struct \`${s[1]}\` (fields not probed).` };
  if (/^(internally tagged )?enum (\S+)$/.test(e) || e === "string or map") return { description: `Rust ${e} (variants not probed).` };
  if (/string/.test(e)) return { type: "string" };
  return { description: `Deserializer expects ${e}.` };
}

function structSchema(s: LearnedStruct, what: string): Schema {
  const out: Schema = { type: "object", properties: s.properties, required: s.required, additionalProperties: true };
  out.description = s.partial ? `${what} Partially probed (stopped at: ${s.partial}).` : what;
  return out;
}

function jsonType(v: Json): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return "integer";
  return typeof v;
}

/** A type whose deserializer names no expected type (untagged enum, custom): which plain values does it take? */
async function learnUntagged(b: Batcher, field: string, set: (v: Json) => Json, depth: number, name: string | undefined, message?: string): Promise<Learned> {
  const seeds = (name && SEEDS[name]) || [];
  const what = name ? `Rust untagged enum \`${name}\`` : `A type with a custom deserializer (null: “${message}”)`;
  const candidates = [...ANY_CANDIDATES, ...seeds];
  const answers = await Promise.all(candidates.map((c) => b.check(set(c))));
  // `{}` answered with a missing field: the field of an enclosing struct, or of this value (then it is a struct)?
  const objectAnswer = answers[ANY_CANDIDATES.findIndex((c) => jsonType(c) === "object")];
  const inner = MISSING.exec(objectAnswer ?? "");
  if (!name && inner && depth < MAX_DEPTH && (await b.check(set({ [inner[1]]: null }))) !== objectAnswer) {
    const s = await learnStruct(b, set, depth + 1, objectAnswer);
    return { schema: structSchema(s, `${what}; probed as a struct.`), value: s.value, next: s.next, partial: s.partial };
  }
  const ok = candidates.map((c, i) => (accepted(answers[i], field) ? c : undefined));
  const plainTypes = [...new Set(ANY_CANDIDATES.filter((_, i) => ok[i] !== undefined).map(jsonType))];
  const seedOk = seeds.filter((_, i) => ok[ANY_CANDIDATES.length + i] !== undefined);
  const first = ok.findIndex((v) => v !== undefined);
  if (first < 0) {
    return { schema: { description: `${what}: none of the plain probe values was accepted.` }, next: answers[0], partial: `${name ?? "custom type"}: no value accepted` };
  }
  const types = [...new Set([...plainTypes, ...seedOk.map(jsonType)])];
  const schema: Schema = {
    type: types.length === 1 ? types[0] : types,
    description:
      `${what}: accepts ${types.join(" or ")} values in the probe` +
      (seedOk.length ? ` (e.g. ${seedOk.map((v) => `\`${JSON.stringify(v)}\``).join(", ")}, hand-added seeds)` : "") +
      "; its exact shape is not learned.",
  };
  if (plainTypes.length === 0) schema.additionalProperties = true;
  return { schema, value: candidates[first], next: answers[first] };
}

/** An externally tagged enum: unit variants are strings, data variants `{variant: …}`. */
async function learnExternalEnum(b: Batcher, field: string, set: (v: Json) => Json, expected: string, depth: number): Promise<Learned> {
  const probe = await b.check(set("zz_probe_variant"));
  const m = /^unknown variant `zz_probe_variant`, (.*)$/.exec(probe ?? "");
  if (!m) return { schema: { description: `Rust ${expected} (variants not learned: ${probe}).` }, next: probe, partial: `enum probe: ${probe}` };
  const variants = backticked(m[1]);
  const answers = await Promise.all(variants.map((v) => b.check(set(v))));
  const units = variants.filter((_, i) => accepted(answers[i], field));
  const data = variants.filter((_, i) => !accepted(answers[i], field));
  const name = expected.startsWith("enum ") ? ` \`${expected.slice(5)}\`` : "";
  if (data.length === 0) return { schema: { type: "string", enum: variants }, value: variants[0], next: answers[0] };
  const schema: Schema = {
    description: `Rust enum${name}: unit variants are strings; data variants (${data.join(", ")}) are objects keyed by the variant name.`,
    anyOf: [
      ...(units.length ? [{ type: "string", enum: units }] : []),
      { type: "object", minProperties: 1, maxProperties: 1, propertyNames: { enum: data } },
    ],
  };
  if (units.length) {
    const i = variants.indexOf(units[0]);
    return { schema, value: units[0], next: answers[i] };
  }
  if (depth >= MAX_DEPTH) return { schema, next: probe, partial: "enum without unit variant (depth limit)" };
  // Only data variants: learn each variant's content like a field.
  const contents = await Promise.all(
    data.map(async (v) => {
      const inner = (x: Json) => set({ [v]: x });
      return learnValue(b, v, await b.check(inner(null)), inner, depth + 1);
    }),
  );
  const ok = contents.findIndex((c) => c.value !== undefined && !c.partial);
  const full: Schema = {
    description: `Rust enum${name}, externally tagged: an object with one key, the variant name.`,
    oneOf: data.map((v, i) => ({ type: "object", required: [v], properties: { [v]: contents[i].schema }, additionalProperties: false })),
  };
  if (ok < 0) return { schema: full, next: probe, partial: "no data variant could be built" };
  return { schema: full, value: { [data[ok]]: contents[ok].value! }, next: contents[ok].next };
}

/** An internally tagged enum: learn the tag name, the variants, and each variant's required fields. */
async function learnInternalEnum(b: Batcher, field: string, set: (v: Json) => Json, depth: number, name: string): Promise<Learned> {
  const empty = await b.check(set({}));
  const tm = MISSING.exec(empty ?? "");
  if (!tm) return { schema: { type: "object", description: `Rust internally tagged enum \`${name}\` (tag not learned: ${empty}).` }, next: empty, partial: `tag probe: ${empty}` };
  const tag = tm[1];
  const probe = await b.check(set({ [tag]: "zz_probe_variant" }));
  const m = /^unknown variant `zz_probe_variant`, (.*)$/.exec(probe ?? "");
  if (!m) {
    // `#[serde(other)]` catch-all, or something else: record the tag only.
    return { schema: { type: "object", required: [tag], properties: { [tag]: { type: "string" } }, description: `Rust internally tagged enum \`${name}\` (variants not learned: ${probe}).` }, value: { [tag]: "zz_probe_variant" }, next: probe, partial: accepted(probe, field) ? undefined : `variant probe: ${probe}` };
  }
  const variants = backticked(m[1]);
  if (depth >= MAX_DEPTH) {
    return { schema: { type: "object", required: [tag], properties: { [tag]: { type: "string", enum: variants } }, additionalProperties: true, description: `Rust internally tagged enum \`${name}\` (variant fields not probed).` }, next: probe, partial: "depth limit" };
  }
  const learned = await Promise.all(variants.map((v) => learnStruct(b, (o) => set({ [tag]: v, ...o }), depth + 1)));
  const oneOf = variants.map((v, i) => {
    const s = learned[i];
    const props = { [tag]: { type: "string", enum: [v] }, ...s.properties };
    return { ...structSchema({ ...s, properties: props, required: [tag, ...s.required] }, `Variant \`${v}\` of Rust enum \`${name}\`.`) };
  });
  const ok = learned.findIndex((s) => s.value !== undefined && !s.partial);
  const schema: Schema = { description: `Rust internally tagged enum \`${name}\` (tag \`${tag}\`).`, oneOf };
  if (ok < 0) return { schema, next: probe, partial: "no variant could be built" };
  return { schema, value: { [tag]: variants[ok], ...learned[ok].value! }, next: learned[ok].next };
}

// ---------------------------------------------------------------------------------------------------------------
// Schema assembly helpers

function pascal(tag: string): string {
  return tag.split(/[_.]/).map((p) => p.charAt(0).toUpperCase() + p.slice(1)).join("");
}

function clone<T>(x: T): T {
  return JSON.parse(JSON.stringify(x)) as T;
}

/** Names of the `#/definitions/X` a schema needs, transitively. */
function closure(nodes: unknown[], defs: Record<string, unknown>): string[] {
  const seen = new Set<string>();
  const visit = (n: unknown): void => {
    if (Array.isArray(n)) return n.forEach(visit);
    if (!n || typeof n !== "object") return;
    for (const [k, v] of Object.entries(n)) {
      if (k === "$ref" && typeof v === "string" && v.startsWith("#/definitions/")) {
        const name = v.slice("#/definitions/".length);
        if (!seen.has(name)) {
          seen.add(name);
          if (!(name in defs)) throw new Error(`unresolved $ref ${v}`);
          visit(defs[name]);
        }
      } else visit(v);
    }
  };
  nodes.forEach(visit);
  return [...seen].sort();
}

function pick(defs: Record<string, unknown>, names: string[]): Record<string, unknown> {
  return Object.fromEntries(names.map((n) => [n, clone(defs[n])]));
}

/** Expand every `#/definitions/X` reference in place (cycles become `{}`), so a schema can move between files. */
function inline(node: unknown, defs: Record<string, unknown>): Schema {
  const walk = (n: unknown, st: string[]): unknown => {
    if (Array.isArray(n)) return n.map((x) => walk(x, st));
    if (!n || typeof n !== "object") return n;
    const o = n as Record<string, unknown>;
    if (typeof o.$ref === "string" && o.$ref.startsWith("#/definitions/")) {
      const name = o.$ref.slice("#/definitions/".length);
      if (st.includes(name)) return {};
      const rest = Object.fromEntries(Object.entries(o).filter(([k]) => k !== "$ref"));
      const target = walk(defs[name], [...st, name]) as Record<string, unknown>;
      return Object.keys(rest).length ? { allOf: [target], ...(walk(rest, st) as object) } : target;
    }
    return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, walk(v, st)]));
  };
  return walk(node, []) as Schema;
}

/** The smallest JSON value a (ref-free) schema accepts, or undefined when it cannot tell. */
function minimalInstance(s: unknown): Json | undefined {
  if (s === true || (s && typeof s === "object" && Object.keys(s).length === 0)) return null;
  if (!s || typeof s !== "object") return undefined;
  const o = s as Record<string, any>;
  if (Array.isArray(o.enum)) return o.enum[0] as Json;
  if (o.const !== undefined) return o.const as Json;
  for (const k of ["allOf", "oneOf", "anyOf"]) {
    if (Array.isArray(o[k])) {
      for (const alt of o[k]) {
        if (alt?.type === "null") continue;
        const rest = Object.fromEntries(Object.entries(o).filter(([key]) => key !== k));
        const v = minimalInstance(k === "allOf" ? { ...rest, ...alt } : alt);
        if (v !== undefined) return v;
      }
      return undefined;
    }
  }
  const type = Array.isArray(o.type) ? o.type.find((t: string) => t !== "null") ?? "null" : o.type ?? (o.properties ? "object" : undefined);
  switch (type) {
    case "string":
      return "";
    case "integer":
    case "number":
      return 0;
    case "boolean":
      return false;
    case "array":
      return [];
    case "null":
      return null;
    case "object": {
      const out: JsonObject = {};
      for (const r of (o.required ?? []) as string[]) {
        const v = minimalInstance(o.properties?.[r] ?? {});
        if (v === undefined) return undefined;
        out[r] = v;
      }
      return out;
    }
    default:
      return undefined;
  }
}

/** The `tag` values of the alternatives of a (ref-free) union schema. */
function tagsOf(s: unknown, tag: string): string[] {
  if (!s || typeof s !== "object") return [];
  const o = s as Record<string, any>;
  const own = o.properties?.[tag]?.enum ?? (o.properties?.[tag]?.const !== undefined ? [o.properties[tag].const] : []);
  const nested = ["oneOf", "anyOf", "allOf"].flatMap((k) => (Array.isArray(o[k]) ? o[k].flatMap((a: unknown) => tagsOf(a, tag)) : []));
  return [...new Set([...(own as string[]), ...nested])];
}

function tagOf(variant: any): string {
  const t = variant?.properties?.type;
  const v = t?.enum?.[0] ?? t?.const;
  if (typeof v !== "string") throw new Error("variant without a type tag");
  return v;
}


// ---------------------------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  if (!/^\d+\.\d+\.\d+/.test(version) || !/^\d+\.\d+\.\d+/.test(shapesFrom)) {
    console.error("usage: npx tsx tools/sync/sync-codex-eventmsg.ts [--version X.Y.Z] [--shapes-from X.Y.Z] [--bin path] [--shapes-bin path]");
    process.exit(2);
  }
  const work = mkdtempSync(join(tmpdir(), "agentnorm-codex-eventmsg-"));
  try {
    const newBin = flag("--bin") ?? install(work, version);
    const oldBin = flag("--shapes-bin") ?? install(work, shapesFrom);
    const newReported = reportedVersion(newBin, work);
    const oldReported = reportedVersion(oldBin, work);
    for (const [rep, v] of [[newReported, version], [oldReported, shapesFrom]]) {
      if (!rep.endsWith(` ${v}`)) throw new Error(`binary reports "${rep}", expected version ${v}`);
    }

    // 1. Shapes: generate-json-schema of both versions.
    const oldOut = join(work, "schema-old");
    const newOut = join(work, "schema-new");
    generateJsonSchema(oldBin, work, oldOut);
    generateJsonSchema(newBin, work, newOut);
    if (!existsSync(join(oldOut, "EventMsg.json"))) throw new Error(`codex ${shapesFrom} did not generate EventMsg.json: pick an older --shapes-from`);
    const newHasEventMsg = existsSync(join(newOut, "EventMsg.json"));
    const oldDoc = JSON.parse(readFileSync(join(oldOut, "EventMsg.json"), "utf8"));
    const oldDefs: Record<string, unknown> = oldDoc.definitions ?? {};
    const oldVariants = new Map<string, any>((oldDoc.oneOf as any[]).map((v) => [tagOf(v), v]));
    const v2 = JSON.parse(readFileSync(join(newOut, "codex_app_server_protocol.v2.schemas.json"), "utf8"));
    const v2Defs: Record<string, unknown> = v2.definitions ?? {};
    if (!v2Defs.ResponseItem) throw new Error(`codex ${version} generated no ResponseItem definition`);

    // 2. Accepted tags, from both binaries' deserializers.
    const oracle = new Oracle(newBin, work);
    const oldOracle = new Oracle(oldBin, work);
    const tags = await oracle.tags();
    const oldTags = await oldOracle.tags();
    console.error(`codex ${version}: ${tags.eventMsg.length} EventMsg tags, ${tags.rolloutItem.length} RolloutItem types; codex ${shapesFrom}: ${oldTags.eventMsg.length} / ${oldTags.rolloutItem.length}`);

    // Serde aliases: accepted by the old deserializer but not in its schema (which lists serialized names).
    // serde lists a variant's aliases right after its name, so the alias belongs to the nearest preceding schema tag.
    const aliasOf = new Map<string, string>();
    oldTags.eventMsg.forEach((t, i) => {
      if (oldVariants.has(t)) return;
      const canonical = oldTags.eventMsg.slice(0, i).reverse().find((c) => oldVariants.has(c));
      if (!canonical) throw new Error(`tag ${t} accepted by ${shapesFrom} is neither in its schema nor after a schema tag`);
      aliasOf.set(t, canonical);
    });
    const current = tags.eventMsg;
    const legacy = [...oldVariants.keys()].filter((t) => !current.includes(t));
    const carried = current.filter((t) => oldVariants.has(t));
    const aliases = current.filter((t) => !oldVariants.has(t) && aliasOf.has(t));
    const added = current.filter((t) => !oldVariants.has(t) && !aliasOf.has(t));

    // 3. Required fields of every tag and every rollout payload, from the new deserializer.
    const b = new Batcher(oracle, 120);
    const eventLine = (tag: string) => (o: JsonObject): Json => ({ timestamp: TS, type: "event_msg", payload: { type: tag, ...o } });
    const payloadTypes = tags.rolloutItem.filter((t) => t !== "event_msg" && t !== "response_item");
    const learnedPayloads = new Map<string, Learned>();
    const learnedEvents = new Map<string, LearnedStruct>();
    let timestampRequired = false;
    console.error(`probing required fields of ${current.length} EventMsg tags and ${payloadTypes.length} rollout payloads …`);
    await b.drive(
      Promise.all([
        ...current.map(async (t) => learnedEvents.set(t, await learnStruct(b, eventLine(t), 0))),
        ...payloadTypes.map(async (t) => {
          const set = (v: Json): Json => ({ timestamp: TS, type: t, payload: v });
          const nullErr = await b.check(set(null));
          const l = await learnValue(b, "payload", nullErr, set, 0);
          if (l.next !== null && !l.partial) l.partial = `line still rejected: ${l.next}`;
          learnedPayloads.set(t, l);
        }),
        (async () => {
          const e = await b.check({ type: "event_msg", payload: { type: "shutdown_complete" } });
          timestampRequired = e === "missing field `timestamp`";
        })(),
      ]),
    );
    // 3b. Alternatives: a field the new deserializer requires may be required only while an older field is absent
    //     (serde's error names the first missing field; a custom deserializer may accept either). Candidates come
    //     from the carried-over shapes — fields <shapes-from> required and <version> no longer requires, filled with a
    //     minimal instance of their <shapes-from> schema — and the binary decides; a pair found on one tag is then
    //     tried on every probed struct that requires the same field.
    const pairs = new Map<string, Map<string, { schema: Schema; value: Json }>>();
    const conditional = new Map<string, Map<string, string[]>>(); // struct key -> field -> accepted alternatives
    const keyOfEvent = (t: string) => `event_msg/${t}`;
    const keyOfPayload = (t: string) => `line/${t}`;
    const structs: { key: string; required: string[]; value?: JsonObject; build: (o: JsonObject) => Json }[] = [
      ...current.map((t) => ({ key: keyOfEvent(t), required: learnedEvents.get(t)!.required, value: learnedEvents.get(t)!.partial ? undefined : learnedEvents.get(t)!.value, build: eventLine(t) })),
      ...payloadTypes.flatMap((t) => {
        const l = learnedPayloads.get(t)!;
        const value = l.value;
        if (l.partial || !value || typeof value !== "object" || Array.isArray(value) || !Array.isArray(l.schema.required)) return [];
        return [{ key: keyOfPayload(t), required: l.schema.required as string[], value, build: (o: JsonObject): Json => ({ timestamp: TS, type: t, payload: o }) }];
      }),
    ];
    const without = (o: JsonObject, f: string): JsonObject => Object.fromEntries(Object.entries(o).filter(([k]) => k !== f));
    await b.drive(
      (async () => {
        await Promise.all(
          carried.map(async (t) => {
            const l = learnedEvents.get(t)!;
            const ov = oldVariants.get(t);
            if (!l.value || l.partial) return;
            const oldReq = ((ov.required ?? []) as string[]).filter((f) => f !== "type");
            const newly = l.required.filter((f) => !oldReq.includes(f));
            const gone = oldReq.filter((f) => !l.required.includes(f));
            await Promise.all(
              newly.flatMap((n) =>
                gone.map(async (g) => {
                  const schema = inline(ov.properties[g], oldDefs);
                  const value = minimalInstance(schema);
                  if (value === undefined) return;
                  if ((await b.check(eventLine(t)({ ...without(l.value!, n), [g]: value }))) !== null) return;
                  if (!pairs.has(n)) pairs.set(n, new Map());
                  pairs.get(n)!.set(g, { schema, value });
                }),
              ),
            );
          }),
        );
        await Promise.all(
          structs.flatMap((st) =>
            st.value
              ? st.required.flatMap((n) =>
                  [...(pairs.get(n) ?? new Map<string, { schema: Schema; value: Json }>()).entries()].map(async ([g, alt]) => {
                    if ((await b.check(st.build({ ...without(st.value!, n), [g]: alt.value }))) !== null) return;
                    if (!conditional.has(st.key)) conditional.set(st.key, new Map());
                    const m = conditional.get(st.key)!;
                    m.set(n, [...(m.get(n) ?? []), g].sort());
                  }),
                )
              : [],
          ),
        );
      })(),
    );
    console.error(`probe: ${b.rounds} app-server runs, ${b.checks} probe lines`);
    /** Make `n` required-or-alternatives in a probed object schema (and declare the alternatives). */
    const applyConditional = (schema: Schema, key: string, describeAlt: (n: string, g: string) => string): void => {
      const cond = conditional.get(key);
      if (!cond) return;
      const req = (schema.required as string[]).filter((f) => !cond.has(f));
      schema.required = req;
      const props = schema.properties as Record<string, Schema>;
      const groups = [...cond.entries()].map(([n, alts]) => {
        for (const g of alts) if (!props[g]) props[g] = { ...pairs.get(n)!.get(g)!.schema, description: describeAlt(n, g) };
        return { anyOf: [n, ...alts].map((f) => ({ required: [f] })) };
      });
      if (groups.length === 1) Object.assign(schema, groups[0]);
      else schema.allOf = groups;
    };

    // 4. EventMsg.json
    const annotate = (v: any, t: string) => {
      const l = learnedEvents.get(t)!;
      const cond = conditional.get(keyOfEvent(t));
      v["x-requiredBy"] = {
        version,
        fields: l.required.filter((f) => !cond?.has(f)),
        ...(cond ? { eitherOf: Object.fromEntries([...cond.entries()].map(([n, alts]) => [n, [n, ...alts]])) } : {}),
        ...(l.partial ? { partial: l.partial } : {}),
      };
      return v;
    };
    const drift: Drift[] = [];
    const variantFor = (t: string): any => {
      const l = learnedEvents.get(t)!;
      if (oldVariants.has(t) || aliasOf.has(t)) {
        const src = oldVariants.has(t) ? t : aliasOf.get(t)!;
        const v = clone(oldVariants.get(src));
        if (src !== t) {
          v.properties.type = { ...v.properties.type, enum: [t], title: `${pascal(t)}EventMsgType` };
          v.title = `${pascal(t)}EventMsg`;
          v.description = `Serde alias of \`${src}\` (accepted when reading; Codex writes \`${src}\`). Shape copied from the \`${src}\` variant of codex ${shapesFrom}.${v.description ? ` Upstream: ${v.description}` : ""}`;
        }
        const oldReq = ((v.required ?? []) as string[]).filter((f) => f !== "type");
        const unknown = l.required.filter((f) => !(f in (v.properties ?? {})));
        // Fields the new deserializer requires that the old shape does not even declare: declare them (typed by
        // the probe) so paths resolve, without making them required (older recordings lack them).
        for (const f of unknown) v.properties[f] = { ...l.properties[f], description: `Not in the codex ${shapesFrom} shape; required by the codex ${version} deserializer (type learned from the binary).` };
        const cond = conditional.get(keyOfEvent(t));
        const newly = l.required.filter((f) => !oldReq.includes(f)).map((f) => (cond?.has(f) ? `${f} (or ${cond.get(f)!.join(", ")})` : f));
        const gone = oldReq.filter((f) => !l.required.includes(f));
        // Internally tagged enums among the probed fields (e.g. TurnItem): variants added/removed since the old shape.
        const variantDrift: string[] = [];
        for (const [f, ps] of Object.entries(l.properties)) {
          const alts = Array.isArray(ps.oneOf) ? (ps.oneOf as Schema[]) : [];
          const tag = (alts[0]?.required as string[] | undefined)?.[0];
          if (!tag || !v.properties?.[f]) continue;
          const now = tagsOf(ps, tag);
          const before = tagsOf(inline(v.properties[f], oldDefs), tag);
          if (!before.length) continue;
          const plus = now.filter((x) => !before.includes(x));
          const minus = before.filter((x) => !now.includes(x));
          if (plus.length || minus.length) variantDrift.push(`\`${f}.${tag}\`: ${plus.map((x) => `+${x}`).concat(minus.map((x) => `−${x}`)).join(" ")}`);
        }
        if (!l.partial && (newly.length || gone.length || variantDrift.length)) drift.push({ tag: t, newlyRequired: newly, noLongerRequired: gone, unknownToShapes: unknown, variants: variantDrift });
        return annotate(v, t);
      }
      const props: Record<string, Schema> = { type: { type: "string", enum: [t], title: `${pascal(t)}EventMsgType` }, ...l.properties };
      const learnedAny = l.required.length > 0;
      const description = learnedAny
        ? `Shape not published: codex ${version} no longer generates the EventMsg schema. The required fields (${l.required.join(", ")}) and their types were learned offline from the codex ${version} binary's own deserializer (serde errors; see PROVENANCE.md)${l.partial ? `, partially (stopped at: ${l.partial})` : ""}; optional fields are unknown to agentnorm.`
        : `Shape not published: codex ${version} no longer generates the EventMsg schema; fields unknown to agentnorm.` +
          (l.partial ? ` Probing the codex ${version} deserializer failed (${l.partial}).` : ` (The codex ${version} deserializer requires no field besides \`type\`.)`);
      const variant: Schema = { type: "object", title: `${pascal(t)}EventMsg`, description, properties: props, required: ["type", ...l.required], additionalProperties: true };
      applyConditional(variant, keyOfEvent(t), (n, g) => `Accepted by the codex ${version} deserializer instead of \`${n}\` (shape of \`${g}\` from codex ${shapesFrom}).`);
      return annotate(variant, t);
    };
    const variants = current.map(variantFor);
    const legacyVariants = legacy.map((t) => clone(oldVariants.get(t)));
    const eventMsg = {
      $schema: "http://json-schema.org/draft-07/schema#",
      title: "EventMsg",
      description:
        `Codex's internal event (\`msg\` of an \`{id, msg}\` Event; \`payload\` of a rollout \`event_msg\` line), one variant per \`type\` tag accepted by codex ${version} (${current.length}). ` +
        `Shapes come from \`codex app-server generate-json-schema\` of codex ${shapesFrom} (the last release that emits EventMsg.json); tags new since then were probed from the ${version} binary. ` +
        `Tags that ${shapesFrom} had and ${version} no longer accepts are listed in x-legacyTags; their variants are in LegacyEventMsg.json. See PROVENANCE.md.`,
      "x-legacyTags": legacy,
      oneOf: variants,
      definitions: pick(oldDefs, closure(variants, oldDefs)),
    };
    const legacyDoc = {
      $schema: "http://json-schema.org/draft-07/schema#",
      title: "LegacyEventMsg",
      description: `EventMsg variants of codex ${shapesFrom} whose \`type\` tag codex ${version} no longer accepts (older recordings still contain them). Shapes as generated by codex ${shapesFrom}. See PROVENANCE.md.`,
      "x-legacyTags": legacy,
      oneOf: legacyVariants,
      definitions: pick(oldDefs, closure(legacyVariants, oldDefs)),
    };

    // 5. RolloutLine.json
    const responseItemDefs = closure([{ $ref: "#/definitions/ResponseItem" }], v2Defs);
    const rolloutVariants = tags.rolloutItem.map((t) => {
      let payload: Schema;
      if (t === "event_msg") {
        payload = {
          type: "object",
          required: ["type"],
          properties: { type: { type: "string", enum: current } },
          additionalProperties: true,
          description: "An EventMsg: validate it against EventMsg.json in this folder (by its `type`); older files may hold tags of LegacyEventMsg.json.",
        };
      } else if (t === "response_item") {
        payload = { $ref: "#/definitions/ResponseItem" };
      } else {
        const l = learnedPayloads.get(t)!;
        payload = clone(l.schema);
        if (payload.properties && Array.isArray(payload.required)) applyConditional(payload, keyOfPayload(t), (n, g) => `Accepted by the codex ${version} deserializer instead of \`${n}\` (shape of \`${g}\` from the codex ${shapesFrom} schema).`);
        const note = `Not published by any generator: the required fields and their types were learned offline from the codex ${version} deserializer (see PROVENANCE.md); optional fields are unknown, so additional properties are allowed.`;
        payload.description = [payload.description, note, l.partial ? `Probing stopped at: ${l.partial}.` : undefined].filter(Boolean).join(" ");
      }
      return {
        type: "object",
        title: `${pascal(t)}RolloutLine`,
        required: timestampRequired ? ["timestamp", "type", "payload"] : ["type", "payload"],
        properties: { timestamp: { type: "string" }, type: { type: "string", enum: [t] }, payload },
      };
    });
    const rolloutLine = {
      $schema: "http://json-schema.org/draft-07/schema#",
      title: "RolloutLine",
      description: `One line of a Codex rollout file (~/.codex/sessions/…/rollout-*.jsonl) as read by codex ${version}: \`{timestamp, type, payload}\` with one of its ${tags.rolloutItem.length} RolloutItem types. ResponseItem comes from \`generate-json-schema\` of codex ${version}; the other payloads were probed from its deserializer. See PROVENANCE.md.`,
      oneOf: rolloutVariants,
      definitions: pick(v2Defs, responseItemDefs),
    };

    // 6. Write.
    const dest = join(root, "schemas/upstream/codex-eventmsg", version);
    rmSync(dest, { recursive: true, force: true });
    mkdirSync(dest, { recursive: true });
    const write = (f: string, doc: unknown) => writeFileSync(join(dest, f), JSON.stringify(doc, null, 2) + "\n");
    write("EventMsg.json", eventMsg);
    write("LegacyEventMsg.json", legacyDoc);
    write("RolloutLine.json", rolloutLine);
    cpSync(join(root, "schemas/upstream/codex-app-server/LICENSE"), join(dest, "LICENSE"));
    const files = ["EventMsg.json", "LegacyEventMsg.json", "RolloutLine.json", "LICENSE"];
    const sums = sha256Rows(dest, files);
    writeFileSync(
      join(dest, "PROVENANCE.md"),
      provenance({
        newReported, oldReported, newHasEventMsg, tags, oldTags, carried, aliases, aliasOf, added, legacy, learnedEvents, learnedPayloads,
        drift, timestampRequired, responseItemDefs, conditional, rounds: b.rounds, checks: b.checks, sums,
        usedBins: { newBin: flag("--bin") !== undefined, oldBin: flag("--shapes-bin") !== undefined },
      }),
    );
    console.error(`wrote ${listFiles(dest).length} files to ${relative(root, dest)}: ${current.length} EventMsg variants (${carried.length} carried over, ${aliases.length} aliases, ${added.length} new), ${legacy.length} legacy, ${tags.rolloutItem.length} rollout line types`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

interface Drift {
  tag: string;
  newlyRequired: string[];
  noLongerRequired: string[];
  unknownToShapes: string[];
  variants: string[];
}

interface ProvenanceInput {
  newReported: string;
  oldReported: string;
  newHasEventMsg: boolean;
  tags: { eventMsg: string[]; rolloutItem: string[] };
  oldTags: { eventMsg: string[]; rolloutItem: string[] };
  carried: string[];
  aliases: string[];
  aliasOf: Map<string, string>;
  added: string[];
  legacy: string[];
  learnedEvents: Map<string, LearnedStruct>;
  learnedPayloads: Map<string, Learned>;
  drift: Drift[];
  timestampRequired: boolean;
  responseItemDefs: string[];
  conditional: Map<string, Map<string, string[]>>;
  rounds: number;
  checks: number;
  sums: string[];
  usedBins: { newBin: boolean; oldBin: boolean };
}

function provenance(p: ProvenanceInput): string {
  const code = (xs: string[]) => (xs.length ? xs.map((x) => `\`${x}\``).join(", ") : "–");
  const typeOf = (s: Schema | undefined): string => {
    if (!s) return "?";
    if (Array.isArray(s.enum)) return `enum(${(s.enum as string[]).length})`;
    if (s.type === "array") return `array<${typeOf(s.items as Schema)}>`;
    if (typeof s.type === "string") return s.type;
    if (s.oneOf) return "tagged enum";
    if (s.anyOf) return "enum";
    return "any";
  };
  const fields = (l: LearnedStruct) => (l.required.length ? l.required.map((f) => `\`${f}\`: ${typeOf(l.properties[f])}`).join(", ") : "– (only `type`)");
  const newRows = p.added.map((t) => {
    const l = p.learnedEvents.get(t)!;
    return `| \`${t}\` | ${fields(l)} | ${l.partial ? `partial: ${l.partial.replace(/\|/g, "\\|")}` : "complete"} |`;
  });
  const payloadRows = p.tags.rolloutItem.map((t) => {
    if (t === "event_msg") return `| \`event_msg\` | EventMsg: an object whose \`type\` is one of the ${p.tags.eventMsg.length} tags; validate it with EventMsg.json |`;
    if (t === "response_item") return `| \`response_item\` | \`ResponseItem\` from \`generate-json-schema\` of codex ${version} (with ${p.responseItemDefs.length - 1} referenced definitions) |`;
    const l = p.learnedPayloads.get(t)!;
    const s = l.schema;
    const req = Array.isArray(s.required) ? (s.required as string[]) : [];
    const props = (s.properties ?? {}) as Record<string, Schema>;
    const shape = s.type === "object" && !s.oneOf ? (req.length ? req.map((f) => `\`${f}\`: ${typeOf(props[f])}`).join(", ") : "object, no required field") : typeOf(s);
    return `| \`${t}\` | probed: ${shape}${l.partial ? ` (partial: ${l.partial.replace(/\|/g, "\\|")})` : ""} |`;
  });
  const driftRows = p.drift.map((d) => `| \`${d.tag}\` | ${code(d.newlyRequired)} | ${code(d.noLongerRequired)} | ${code(d.unknownToShapes)} | ${d.variants.join("; ") || "–"} |`);
  const condRows = [...p.conditional.entries()].flatMap(([k, m]) => [...m.entries()].map(([n, alts]) => `| \`${k}\` | \`${n}\` | ${code(alts)} |`));
  const partialCarried = [...p.carried, ...p.aliases].filter((t) => p.learnedEvents.get(t)!.partial);
  return `# Provenance: Codex EventMsg / rollout line JSON Schemas ${version}

- **What:** JSON Schemas (draft-07) of Codex's internal \`EventMsg\` (the \`msg\` of \`{id, msg}\` events in TUI logs and
  the \`payload\` of \`{"type":"event_msg"}\` rollout lines) and of a rollout file line, for the Codex CLI ${version}
  (\`@openai/codex@${version}\`, binary reports \`${p.newReported}\`).
- **Why not generated directly:** \`codex app-server generate-json-schema\` no longer emits \`EventMsg.json\`
  (${version}: ${p.newHasEventMsg ? "it does — this folder could be generated directly" : "not emitted"}). The last release whose generator emits it is ${shapesFrom}
  (\`@openai/codex@${shapesFrom}\`, binary reports \`${p.oldReported}\`), which is where the variant shapes come from.
- **Generated by:** \`npx tsx tools/sync/sync-codex-eventmsg.ts --version ${version} --shapes-from ${shapesFrom}\`
  (tools/sync/sync-codex-eventmsg.ts). It installs both npm packages into a temporary folder${p.usedBins.newBin || p.usedBins.oldBin ? " (this run reused already-installed binaries of the same versions via --bin/--shapes-bin)" : ""}, runs
  \`generate-json-schema\` of both offline${canUnshare ? " inside `unshare -rn`" : ""} with throwaway \`CODEX_HOME\`s, and probes the ${version}
  binary's deserializer (below). Reproduce with the same command; the output is deterministic.
- **Upstream:** https://github.com/openai/codex (codex-rs/protocol), Apache License 2.0; the license text is in \`LICENSE\`
  beside this file (copied from schemas/upstream/codex-app-server/LICENSE).

## How the tag lists and the unpublished fields were obtained (offline)

The script writes a synthetic rollout file into a throwaway \`CODEX_HOME\`, starts \`codex app-server\` (no network,
\`RUST_LOG=trace\`), sends \`initialize\` / \`initialized\` / \`thread/read {includeTurns:true}\`, and reads the
\`failed to parse rollout line: …\` trace lines serde produces for lines it cannot deserialize (each probe line is
followed by a sentinel line with an unknown tag, so every error is attributed to its line).

- **Tag lists:** a line with an unknown \`event_msg\` type and one with an unknown line type yield serde's
  \`unknown variant …, expected one of …\` lists: **${p.tags.eventMsg.length} EventMsg tags** and **${p.tags.rolloutItem.length} RolloutItem types**
  for ${version}; ${p.oldTags.eventMsg.length} / ${p.oldTags.rolloutItem.length} for ${shapesFrom}.
- **Required fields:** for each tag the script starts from \`{"type": tag}\` and follows the deserializer's errors:
  \`\` missing field \`f\` \`\` names the next required field; setting it to \`null\` yields \`invalid type: null, expected …\`
  (\`a string\`, \`u64\`, \`a sequence\`, \`struct X\`, \`enum X\`, \`internally tagged enum X\`, …), which gives its type;
  a value of that type is then put in place (nested structs and enums are probed the same way, up to depth ${MAX_DEPTH}) and
  the next error is read, until the line parses. ${p.rounds} app-server runs, ${p.checks} probe lines in all.
  **Limits:** only *required* fields are visible (serde fills missing \`Option\` / \`#[serde(default)]\` fields silently
  and ignores unknown ones), so every probed shape keeps \`additionalProperties: true\`; string formats are only
  noted when the empty string was rejected; enum variants learned this way are exact (serde's own list).
- **Either-or fields:** serde names only the *first* missing field, and a custom deserializer may accept one of
  several fields. So for every carried-over tag whose required set changed, each field ${shapesFrom} required and ${version}
  no longer requires is tried, filled with a minimal instance of its ${shapesFrom} schema, in place of each newly
  required field; pairs the binary accepts are then tried on every probed struct requiring the same field. Found
  (the schema requires one of them: \`anyOf: [{required: [a]}, {required: [b]}]\`; the alternative is declared with
  its ${shapesFrom} schema, inlined):
${condRows.length ? `\n| where | field | or instead |\n|---|---|---|\n${condRows.join("\n")}\n` : "\n  none.\n"}
## EventMsg.json — ${p.tags.eventMsg.length} variants (one per tag accepted by ${version})

- **${p.carried.length} carried over** from the ${shapesFrom} schema verbatim, with their definitions
  (${shapesFrom} shapes: fields added since then are not declared unless the ${version} deserializer *requires* them, see drift).
- **${p.aliases.length} serde aliases** (${p.aliases.map((a) => `\`${a}\` → \`${p.aliasOf.get(a)}\``).join(", ")}): accepted by the deserializer but never written;
  the variant is a copy of the canonical one with the tag replaced. (${shapesFrom} already accepted them: its binary lists
  them right after the canonical name, while its schema has only the canonical one.)
- **${p.added.length} new since ${shapesFrom}**: hand-assembled, permissive variants (\`additionalProperties: true\`,
  description "Shape not published: …"), with the required fields learned from the ${version} deserializer:

| tag | required fields (type) learned from the ${version} binary | probe |
|---|---|---|
${newRows.join("\n")}

- **Annotation:** every variant carries \`x-requiredBy: {version, fields}\` — the fields the ${version} deserializer
  requires (besides \`type\`), from the probe. It does not change validation.
- **x-legacyTags** (top level, also in LegacyEventMsg.json): the ${p.legacy.length} tags ${shapesFrom} had and ${version} rejects.

### Drift of carried-over shapes (required fields, ${shapesFrom} schema vs. ${version} deserializer)

Where the ${version} deserializer requires a field the ${shapesFrom} shape does not declare at all, the field was added
to \`properties\` (typed by the probe, not \`required\`, so older recordings still validate). Other drift is only reported.
${driftRows.length ? `\n| tag | newly required | no longer required | declared from the probe | variants of a tagged-enum field (+ new in ${version}, − gone) |\n|---|---|---|---|---|\n${driftRows.join("\n")}\n` : "\nNone.\n"}${partialCarried.length ? `\nProbe incomplete (no drift computed) for: ${code(partialCarried)}.\n` : ""}
## LegacyEventMsg.json — ${p.legacy.length} variants

${code(p.legacy)}: the ${shapesFrom} variants (and their definitions) of tags the ${version} deserializer no longer accepts.

## RolloutLine.json — ${p.tags.rolloutItem.length} variants

\`{timestamp, type, payload}\` (\`timestamp\` ${p.timestampRequired ? "is required: a line without it is rejected" : "is not required by the deserializer"}), one variant per RolloutItem type of ${version}:

| type | payload |
|---|---|
${payloadRows.join("\n")}

## Files

| file | sha256 |
|---|---|
${p.sums.join("\n")}
`;
}

if (isMain(import.meta.url)) {
  main().catch((e) => {
    console.error(e instanceof Error ? e.stack ?? e.message : e);
    process.exit(1);
  });
}
