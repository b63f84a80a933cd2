/**
 * The capture-wrapper line formats, in one place: a recorder's line {direction|dir|channel, message|frame} around
 * the provider message. `unwrap` takes the message and its direction out (pushLine does this before the table sees
 * the line); `unwrapCaptureLine` also keeps the channel and the wrapper for a capture's native_in record.
 * No Node APIs.
 */
import type { Direction } from "../normalize/state.js";

const DIRECTIONS: Record<string, Direction | undefined> = {
  in: "in", out: "out", incoming: "in", outgoing: "out", "server->client": "in", "client->server": "out",
  "agent->client": "in", "client->agent": "out", recv: "in", send: "out", unmarked: undefined,
};

/** A capture wrapper {direction|dir|channel, message|frame} → the message and its direction. */
export function unwrap(x: unknown): { message: unknown; direction?: Direction } {
  if (x && typeof x === "object" && !Array.isArray(x)) {
    const o = x as Record<string, unknown>;
    // A capture wrapper has no type of its own (Claude SDK messages carry `type` and a `message` field).
    if (typeof o.method !== "string" && typeof o.type !== "string" && !("result" in o) && !("error" in o)) {
      const inner = o.message ?? o.frame;
      const dir = o.direction ?? o.dir ?? o.channel;
      if (inner && typeof inner === "object") return { message: inner, direction: typeof dir === "string" ? DIRECTIONS[dir] : undefined };
    }
  }
  return { message: x };
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
