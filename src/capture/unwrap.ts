/**
 * The capture-wrapper line formats, in one place: a recorder's line {direction|dir|channel, message|frame} around
 * the provider message (or, with a direction word, `m`, or `json`: the message's JSON text). `unwrap` takes the message and its direction out (pushLine does this before the table sees
 * the line); `unwrapCaptureLine` also keeps the channel and the wrapper for a capture's native_in record.
 * No Node APIs.
 */
import type { Direction } from "../normalize/state.js";

const DIRECTIONS: Record<string, Direction | undefined> = {
  in: "in", out: "out", incoming: "in", outgoing: "out", "server->client": "in", "client->server": "out",
  "agent->client": "in", "client->agent": "out", recv: "in", send: "out", unmarked: undefined,
  // a client's log, named by where the message came from or went
  inbound: "in", outbound: "out", fromAgent: "in", fromServer: "in", fromClient: "out", toAgent: "out", toServer: "out", toClient: "in",
};

/**
 * Where a wrapper that names a direction may hold its message besides `message` / `frame`: `m`, and `json` — the
 * message's JSON text (a log that stores what went over the wire as a string), parsed here.
 */
const DIRECTED_MESSAGE = ["m", "json"] as const;

/**
 * What a recorder's own line never has: a message or anything a wrapper of one has (a direction, a sequence number) or
 * a protocol message has itself.
 */
const NOT_IN_A_RECORD = ["message", "frame", "payload", "dir", "direction", "seq", "method", "id", "type", "jsonrpc"] as const;

/**
 * A capture wrapper {direction|dir|channel, message|frame} → the message and its direction. A recorder's own line in a
 * capture — a `channel` that names no direction, and none of NOT_IN_A_RECORD: e.g. a probe's `{ts, channel:
 * "scenario-result", scenario, result}` — is `record` (the channel): no protocol message at all.
 */
export function unwrap(x: unknown): { message: unknown; direction?: Direction; record?: string; fromText?: boolean } {
  if (x && typeof x === "object" && !Array.isArray(x)) {
    const o = x as Record<string, unknown>;
    // A capture wrapper has no type of its own (Claude SDK messages carry `type` and a `message` field).
    if (typeof o.method !== "string" && typeof o.type !== "string" && !("result" in o) && !("error" in o)) {
      const dir = o.direction ?? o.dir ?? o.channel;
      const direction = typeof dir === "string" ? DIRECTIONS[dir] : undefined;
      const inner = o.message ?? o.frame;
      if (inner && typeof inner === "object") return { message: inner, direction };
      if (inner === undefined && typeof dir === "string" && Object.hasOwn(DIRECTIONS, dir)) {
        // a wrapper naming a direction, its message under another name (`m`), or as JSON text (`json`)
        for (const k of DIRECTED_MESSAGE) {
          const v = o[k];
          if (v && typeof v === "object" && !Array.isArray(v)) return { message: v, direction };
          if (typeof v === "string" && k === "json") {
            const parsed = parseObject(v);
            if (parsed !== undefined) return { message: parsed, direction, fromText: true };
          }
        }
      }
    }
    const ch = o.channel;
    if (typeof ch === "string" && !Object.hasOwn(DIRECTIONS, ch) && NOT_IN_A_RECORD.every((k) => o[k] === undefined)) return { message: x, record: ch };
  }
  return { message: x };
}

/** A JSON object's text → the object (undefined for anything else: not JSON, or another JSON value). */
function parseObject(text: string): Record<string, unknown> | undefined {
  const t = text.trimStart();
  if (!t.startsWith("{")) return undefined;
  try {
    const v = JSON.parse(t);
    return v && typeof v === "object" && !Array.isArray(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

export interface NativeMeta {
  direction?: Direction;
  channel?: string;
  /** The capture wrapper the message came in (passed on to the normalizer as PushOptions.capture). */
  capture?: unknown;
}

/**
 * A parsed input line → the message and its capture metadata. Capture wrappers ({seq?, dir|direction, channel?,
 * message|frame}) are recognised exactly as Normalizer.pushLine recognises them (unwrap, above).
 */
export function unwrapCaptureLine(parsed: unknown): { message: unknown; meta: NativeMeta } {
  const w = unwrap(parsed);
  if (w.message === parsed) return { message: parsed, meta: {} };
  const channel = (parsed as Record<string, unknown>).channel;
  return { message: w.message, meta: { direction: w.direction, channel: typeof channel === "string" ? channel : undefined, capture: parsed } };
}

/** The fields a JSON document holding a stream keeps it in (the first that holds a non-empty list of objects). */
const STREAM_FIELDS = ["messages", "events"] as const;

const listOfObjects = (v: unknown): v is unknown[] => Array.isArray(v) && v.length > 0 && v.every((x) => x !== null && typeof x === "object" && !Array.isArray(x));

/**
 * The stream one JSON document holds (a test harness's recording: `{…, "messages": [ … ]}`): its top-level `messages`
 * (or `events`) array when that is a non-empty list of objects; else, in a document that is no message itself (no
 * `type` or `method` naming one), the one top-level field that holds such a list, whatever its name (`records`,
 * `items`, …; two such fields: which is the stream is not clear, so none). Undefined for anything else. Readers look
 * for it only when no surface recognises the input's lines.
 */
export function streamIn(doc: unknown): unknown[] | undefined {
  if (!doc || typeof doc !== "object" || Array.isArray(doc)) return undefined;
  const o = doc as Record<string, unknown>;
  for (const f of STREAM_FIELDS) if (listOfObjects(o[f])) return o[f] as unknown[];
  if (typeof o.type === "string" || typeof o.method === "string") return undefined;
  let found: unknown[] | undefined;
  for (const k of Object.keys(o)) {
    const v = o[k];
    if (!listOfObjects(v)) continue;
    if (found) return undefined;
    found = v;
  }
  return found;
}

/**
 * Could an input whose first non-blank line is `first` be JSON written over several lines (so a reader may read it
 * whole)? It starts with "{" and is pretty-printed (the line is no JSON value of its own), or that line is all there is.
 */
export function mayBeDocument(first: string, onlyLine: boolean): boolean {
  if (!first.trimStart().replace(/^\uFEFF/, "").startsWith("{")) return false;
  if (onlyLine) return true;
  try {
    JSON.parse(first);
    return false;
  } catch {
    return true;
  }
}

/**
 * The JSON values a text holds one after another, whatever its line breaks (pretty-printed messages, as `jq .`
 * prints a log; or one document); undefined when it is not such a sequence (a part that does not parse, or text
 * between values). A scan for where each top-level value ends, then JSON.parse of each.
 */
export function jsonValues(text: string): unknown[] | undefined {
  const out: unknown[] = [];
  let depth = 0;
  let inString = false;
  let start = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
      continue;
    }
    if (c === 32 || c === 10 || c === 13 || c === 9 || c === 0xfeff) continue;
    if (depth === 0) {
      if (c !== 123 && c !== 91) return undefined; // a top-level value here is an object or an array
      start = i;
    }
    if (c === 34) inString = true;
    else if (c === 123 || c === 91) depth++;
    else if (c === 125 || c === 93) {
      if (--depth < 0) return undefined;
      if (depth === 0) {
        try {
          out.push(JSON.parse(text.slice(start, i + 1)));
        } catch {
          return undefined;
        }
      }
    }
  }
  return depth === 0 && !inString ? out : undefined;
}

/**
 * The messages of an input read whole (see mayBeDocument): one document holding a stream gives its stream
 * (streamIn), a sequence of JSON values gives the values; undefined when the text is neither.
 */
export function documentMessages(text: string): unknown[] | undefined {
  const values = jsonValues(text);
  if (!values || values.length === 0) return undefined;
  return (values.length === 1 ? streamIn(values[0]) : undefined) ?? values;
}
