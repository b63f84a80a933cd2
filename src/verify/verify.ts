/**
 * The stream verifier: checks a canonical event stream against the grammar of the canonical model
 * (EVENTS.md §1 + the lifecycle rules the normalizer promises). Feed it events one at a time (push) and call
 * end(); or verifyEvents(array). Uses no Node APIs.
 *
 * A finding is a **violation** (the stream breaks the grammar: a normalizer or table bug) or a **warning**
 * (legal, but worth knowing — e.g. a request still open when the stream stops, which is what a stream cut short
 * looks like). Every finding names its rule (VERIFY_RULES), the event's sequence number and a readable reason.
 *
 * State is kept per sessionId (a file may hold several sessions). The verifier remembers every id it saw, so its
 * memory grows with the stream (it is a checker, not the runtime).
 */
import { ID_PREFIXES, type IdKind } from "../../generated/canonical.gen.js";
import { validateCanonicalEvent } from "../../generated/validators/canonical-event.gen.js";

export type VerifySeverity = "violation" | "warning";

export interface VerifyFinding {
  severity: VerifySeverity;
  /** A key of VERIFY_RULES. */
  rule: string;
  reason: string;
  /** The event's sequence number (absent when the event has none, or for end-of-stream findings about no event). */
  sequence?: number;
  eventId?: string;
  type?: string;
  /** Input line (CLI / verifyLines), when known. */
  line?: number;
}

/** Every rule the verifier checks, with what it means. */
export const VERIFY_RULES = {
  "json": "every input line is one JSON object",
  "schema": "every event validates against the canonical JSON Schema (generated/canonical.schema.json)",
  "sequence": "`sequence` strictly increases within a session",
  "event-id-unique": "no two events share an eventId",
  "id-format": "canonical id fields (eventId, sessionId, threadId, turnId, itemId, requestId, parentId, payload.taskId) carry a minted id with their kind's prefix (EVENTS.md §1.6)",
  "provider-id": "no provider id in a canonical id field: a canonical id never equals a providerRefs value (EVENTS.md §1.6)",
  "id-stable": "a canonical id keeps the provider id it was minted for (providerRefs never changes for the same canonical id)",
  "item-not-started": "item.updated / item.completed / content.delta only for an item that item.started opened",
  "item-restarted": "an item starts once",
  "after-completion": "nothing about an item (item.*, content.delta) after its item.completed",
  "item-open-at-end": "(warning) an item still open when the stream stops",
  "turn-restarted": "a turn starts once",
  "turn-terminal": "exactly one terminal event per turn: turn.completed or turn.aborted, not both, not twice",
  "after-turn-end": "no turn.started, and no item starting, in a turn after its terminal event",
  "turn-not-started": "(warning) a terminal event for a turn no turn.started opened",
  "turn-open-at-end": "(warning) a turn with no terminal event when the stream stops",
  "request-reopened": "a request opens once",
  "request-not-opened": "request.resolved only for a request that request.opened opened",
  "request-resolved-twice": "a request resolves once (resolved, withdrawn and cancelled are all one request.resolved)",
  "request-correlation": "request.resolved names the turnId and itemId its request.opened named",
  "request-open-at-end": "(warning) a request neither resolved nor withdrawn when the stream stops (reported open, or cut short)",
  "user-input-not-requested": "user-input.resolved only after a user-input.requested with the same requestId",
  "user-input-twice": "user input is requested once and resolved once per request",
  "user-input-open-at-end": "(warning) user input requested and not resolved when the stream stops",
} as const;

export type VerifyRule = keyof typeof VERIFY_RULES;

const ID_FIELDS: [field: string, kind: IdKind][] = [
  ["eventId", "EventId"], ["sessionId", "RuntimeSessionId"], ["threadId", "ThreadId"], ["turnId", "TurnId"],
  ["itemId", "RuntimeItemId"], ["requestId", "RuntimeRequestId"], ["parentId", "RuntimeItemId"],
];
const ID_PATTERN = /^[A-Za-z0-9._:-]+$/;
/** Which providerRefs field belongs to which canonical field (for id-stable). */
const REF_OF: Record<string, string> = { threadId: "providerThreadId", turnId: "providerTurnId", itemId: "providerItemId", requestId: "providerRequestId" };

interface Lifecycle { started?: number; ended?: number; endedBy?: string; reportedOpen?: boolean; /** requests: the turn and item the opening named */ turnId?: string; itemId?: string }

interface SessionState {
  lastSequence?: number;
  providerIds: Set<string>;
  /** canonical id → the provider id it carried first (id-stable). */
  refOf: Map<string, string>;
  items: Map<string, Lifecycle>;
  turns: Map<string, Lifecycle>;
  requests: Map<string, Lifecycle>;
  userInput: Map<string, Lifecycle>;
  /** Entities the runtime reported open at end (agentnorm#end), by canonical id. */
  reported: Set<string>;
}

type Check = (e: any, s: SessionState, f: Reporter) => void;
type Reporter = (rule: VerifyRule, reason: string, severity?: VerifySeverity) => void;

const itemCheck = (what: "updated" | "completed" | "delta"): Check => (e, s, f) => {
  const id = e.itemId;
  if (typeof id !== "string") {
    if (what === "delta") f("item-not-started", `content.delta names no itemId: a delta belongs to an open item`);
    else f("item-not-started", `item.${what} names no itemId`);
    return;
  }
  const it = s.items.get(id);
  const label = what === "delta" ? "content.delta" : `item.${what}`;
  if (!it) {
    f("item-not-started", `${label} for item ${id}, which no item.started opened`);
    s.items.set(id, what === "completed" ? { ended: e.sequence } : { started: e.sequence });
    return;
  }
  if (it.ended !== undefined) {
    f("after-completion", `${label} for item ${id} after its item.completed (#${it.ended})`);
    return;
  }
  if (what === "completed") it.ended = e.sequence;
};

const turnTerminal: Check = (e, s, f) => {
  const id = e.turnId;
  if (typeof id !== "string") return; // schema decides whether a terminal event needs a turnId
  const t = s.turns.get(id);
  if (!t) {
    f("turn-not-started", `${e.type} for turn ${id}, which no turn.started opened`, "warning");
    s.turns.set(id, { ended: e.sequence, endedBy: e.type });
    return;
  }
  if (t.ended !== undefined) {
    f("turn-terminal", `a second terminal event for turn ${id}: ${e.type} after ${t.endedBy} (#${t.ended})`);
    return;
  }
  t.ended = e.sequence;
  t.endedBy = e.type;
};

/** What each event type does to the lifecycles. Types not listed only get the envelope checks. */
const CHECKS: Record<string, Check> = {
  "item.started": (e, s, f) => {
    const id = e.itemId;
    if (typeof id !== "string") { f("item-not-started", `item.started names no itemId`); return; }
    const it = s.items.get(id);
    if (it?.ended !== undefined) f("after-completion", `item.started for item ${id} after its item.completed (#${it.ended})`);
    else if (it) f("item-restarted", `item.started for item ${id}, already started at #${it.started}`);
    else s.items.set(id, { started: e.sequence });
    if (typeof e.turnId === "string") {
      const t = s.turns.get(e.turnId);
      if (t?.ended !== undefined) f("after-turn-end", `item ${id} starts in turn ${e.turnId} after its ${t.endedBy} (#${t.ended})`);
    }
  },
  "item.updated": itemCheck("updated"),
  "item.completed": itemCheck("completed"),
  "content.delta": itemCheck("delta"),
  "turn.started": (e, s, f) => {
    const id = e.turnId;
    if (typeof id !== "string") return;
    const t = s.turns.get(id);
    if (t?.ended !== undefined) f("after-turn-end", `turn.started for turn ${id} after its ${t.endedBy} (#${t.ended})`);
    else if (t) f("turn-restarted", `turn.started for turn ${id}, already started at #${t.started}`);
    else s.turns.set(id, { started: e.sequence });
  },
  "turn.completed": turnTerminal,
  "turn.aborted": turnTerminal,
  "request.opened": (e, s, f) => {
    const id = e.requestId;
    if (typeof id !== "string") return;
    const r = s.requests.get(id);
    if (r) f("request-reopened", `request.opened for request ${id}, already opened at #${r.started}`);
    else s.requests.set(id, { started: e.sequence, turnId: e.turnId, itemId: e.itemId });
  },
  "request.resolved": (e, s, f) => {
    const id = e.requestId;
    if (typeof id !== "string") { f("request-not-opened", `request.resolved names no requestId`); return; }
    const r = s.requests.get(id);
    if (!r) { f("request-not-opened", `request.resolved for request ${id}, which no request.opened opened`); s.requests.set(id, { ended: e.sequence }); }
    else if (r.ended !== undefined) f("request-resolved-twice", `request ${id} resolved again (first at #${r.ended})`);
    else {
      r.ended = e.sequence;
      for (const k of ["turnId", "itemId"] as const) {
        if (r[k] !== undefined && e[k] !== r[k]) f("request-correlation", `request.resolved for request ${id} names ${k} ${e[k] ?? "(none)"}, its request.opened (#${r.started}) ${r[k]}`);
      }
    }
  },
  "user-input.requested": (e, s, f) => {
    const id = e.requestId;
    if (typeof id !== "string") { f("user-input-not-requested", `user-input.requested names no requestId, so no answer can be matched to it`); return; }
    const r = s.userInput.get(id);
    if (r) f("user-input-twice", `user input requested again for request ${id} (first at #${r.started})`);
    else s.userInput.set(id, { started: e.sequence });
  },
  "user-input.resolved": (e, s, f) => {
    const id = e.requestId;
    if (typeof id !== "string") { f("user-input-not-requested", `user-input.resolved names no requestId`); return; }
    const r = s.userInput.get(id);
    if (!r) { f("user-input-not-requested", `user-input.resolved for request ${id}, which no user-input.requested asked`); s.userInput.set(id, { ended: e.sequence }); }
    else if (r.ended !== undefined) f("user-input-twice", `user input for request ${id} resolved again (first at #${r.ended})`);
    else r.ended = e.sequence;
  },
  "runtime.warning": (e, s) => {
    // The runtime's end-of-stream report: this entity is knowingly open.
    if (e.raw?.rule !== "agentnorm#end") return;
    for (const f of ["requestId", "itemId", "turnId"]) if (typeof e[f] === "string") s.reported.add(e[f]);
  },
};

export interface StreamVerifier {
  /** Check one event; returns the findings it caused. `line` is the input line, when known. */
  push(event: unknown, line?: number): VerifyFinding[];
  /** Report a line that is not JSON. */
  malformed(line: number, message: string): VerifyFinding[];
  /** End of stream: warnings for what is still open. */
  end(): VerifyFinding[];
  /** Events checked so far. */
  readonly count: number;
}

export function createVerifier(): StreamVerifier {
  const sessions = new Map<string, SessionState>();
  const eventIds = new Set<string>();
  let count = 0;
  const session = (id: string): SessionState => {
    let s = sessions.get(id);
    if (!s) sessions.set(id, (s = { providerIds: new Set(), refOf: new Map(), items: new Map(), turns: new Map(), requests: new Map(), userInput: new Map(), reported: new Set() }));
    return s;
  };
  return {
    get count() { return count; },
    malformed(line, message) {
      return [{ severity: "violation", rule: "json", reason: `line ${line}: ${message}`, line }];
    },
    push(event, line) {
      count++;
      const out: VerifyFinding[] = [];
      const e: any = event;
      const where = { ...(typeof e?.sequence === "number" ? { sequence: e.sequence } : {}), ...(typeof e?.eventId === "string" ? { eventId: e.eventId } : {}), ...(typeof e?.type === "string" ? { type: e.type } : {}), ...(line !== undefined ? { line } : {}) };
      const f: Reporter = (rule, reason, severity = "violation") => { out.push({ severity, rule, reason, ...where }); };
      if (e === null || typeof e !== "object" || Array.isArray(e)) {
        f("schema", `an event must be a JSON object, got ${Array.isArray(e) ? "an array" : e === null ? "null" : typeof e}`);
        return out;
      }
      if (!validateCanonicalEvent(e)) {
        const errs = ((validateCanonicalEvent as any).errors ?? []) as { instancePath?: string; message?: string }[];
        const first = errs.slice(0, 3).map((x) => `${x.instancePath || "/"} ${x.message}`).join("; ");
        f("schema", `${typeof e.type === "string" ? e.type : "event"} does not match the canonical schema: ${first}${errs.length > 3 ? ` (+${errs.length - 3} more)` : ""}`);
      }
      const s = session(typeof e.sessionId === "string" ? e.sessionId : "");
      if (typeof e.sequence === "number") {
        if (s.lastSequence !== undefined && !(e.sequence > s.lastSequence)) f("sequence", `sequence ${e.sequence} does not follow ${s.lastSequence}`);
        s.lastSequence = e.sequence;
      }
      if (typeof e.eventId === "string") {
        if (eventIds.has(e.eventId)) f("event-id-unique", `eventId ${e.eventId} was already used`);
        eventIds.add(e.eventId);
      }
      // §1.6: canonical ids are minted and prefixed; provider ids live in providerRefs.
      const refs = e.providerRefs && typeof e.providerRefs === "object" ? e.providerRefs : undefined;
      if (refs) for (const k in refs) if (typeof refs[k] === "string") s.providerIds.add(refs[k]);
      const ids: [string, IdKind, unknown][] = ID_FIELDS.map(([field, kind]) => [field, kind, e[field]]);
      if (e.payload && typeof e.payload === "object" && "taskId" in e.payload) ids.push(["payload.taskId", "RuntimeTaskId", e.payload.taskId]);
      for (const [field, kind, v] of ids) {
        if (v === undefined) continue;
        const prefix = `${ID_PREFIXES[kind]}_`;
        if (typeof v !== "string" || !v.startsWith(prefix) || !ID_PATTERN.test(v.slice(prefix.length))) {
          f("id-format", `${field} ${JSON.stringify(v)} is not a minted ${kind} (${prefix}…)`);
          continue;
        }
        if (s.providerIds.has(v)) f("provider-id", `${field} ${v} is a provider id (it appears in providerRefs)`);
        const rf = REF_OF[field];
        const pid = rf && refs && typeof refs[rf] === "string" ? (refs[rf] as string) : undefined;
        if (pid !== undefined) {
          const had = s.refOf.get(v);
          if (had === undefined) s.refOf.set(v, pid);
          else if (had !== pid) f("id-stable", `${field} ${v} was minted for provider id ${JSON.stringify(had)}, now carries ${rf} ${JSON.stringify(pid)}`);
        }
      }
      const check = typeof e.type === "string" && Object.hasOwn(CHECKS, e.type) ? CHECKS[e.type] : undefined;
      if (check) check(e, s, f);
      return out;
    },
    end() {
      const out: VerifyFinding[] = [];
      for (const s of sessions.values()) {
        const open = (m: Map<string, Lifecycle>, rule: VerifyRule, what: string) => {
          for (const [id, x] of m) {
            if (x.ended !== undefined) continue;
            const how = s.reported.has(id) ? "the runtime reported it open at end" : "not reported: the input looks cut short";
            out.push({ severity: "warning", rule, reason: `${what} ${id} (from #${x.started}) is still open when the stream stops (${how})`, ...(x.started !== undefined ? { sequence: x.started } : {}) });
          }
        };
        open(s.requests, "request-open-at-end", "request");
        open(s.userInput, "user-input-open-at-end", "user input for request");
        open(s.items, "item-open-at-end", "item");
        open(s.turns, "turn-open-at-end", "turn");
      }
      return out;
    },
  };
}

export interface VerifyResult {
  events: number;
  violations: VerifyFinding[];
  warnings: VerifyFinding[];
}

/** Verify a whole stream of events. */
export function verifyEvents(events: Iterable<unknown>): VerifyResult {
  const v = createVerifier();
  const all: VerifyFinding[] = [];
  for (const e of events) all.push(...v.push(e));
  all.push(...v.end());
  return { events: v.count, violations: all.filter((x) => x.severity === "violation"), warnings: all.filter((x) => x.severity === "warning") };
}

/** One finding as a line of text: `#12 item.completed [after-completion] …`. */
export function formatFinding(x: VerifyFinding): string {
  const at = x.sequence !== undefined ? `#${x.sequence}` : x.line !== undefined ? `line ${x.line}` : "end";
  return `${at}${x.type ? ` ${x.type}` : ""} [${x.rule}]${x.severity === "warning" ? " warning:" : ""} ${x.reason}`;
}
