/**
 * The stream verifier: checks a canonical event stream against the grammar of the canonical model
 * (the canonical model and the lifecycle grammar of schemas/canonical/canonical.yaml). Feed it events one at a time (push) and call
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
import { ENVELOPE_FIELD, EVENT_LIFECYCLE, LIFECYCLE, REF_FIELD, ROLE_KIND, type GrammarRole, type LifecycleName, type LifecyclePhase, type VerifyFindingKind } from "../../generated/grammar.gen.js";
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
  "id-format": "canonical id fields (eventId, sessionId, threadId, turnId, itemId, requestId, parentId, payload.taskId) carry a minted id with their kind's prefix",
  "provider-id": "no provider id in a canonical id field: a canonical id never equals a providerRefs value",
  "id-stable": "a canonical id keeps the provider id it was minted for (providerRefs never changes for the same canonical id)",
  "item-not-started": "item.updated / item.completed / content.delta only for an item that item.started opened",
  "item-restarted": "an item starts once",
  "after-completion": "nothing about an item (item.*, content.delta) after its item.completed",
  "item-open-at-end": "(warning) an item still open when the stream stops",
  "turn-restarted": "a turn starts once",
  "turn-terminal": "exactly one terminal event per turn: turn.completed or turn.aborted, not both, not twice",
  "after-turn-end": "no turn.started, and no item starting, in a turn after its terminal event (but under an open background item of that turn: background work outlives its turn)",
  "turn-not-started": "(warning) a terminal event for a turn no turn.started opened",
  "turn-open-at-end": "(warning) a turn with no terminal event when the stream stops",
  "turn-before-thread": "a turn.started names its thread (threadId), whose thread.started came before it: the thread starts first, always",
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
  ["eventId", "EventId"], ["sessionId", "RuntimeSessionId"],
  ...Object.entries(ENVELOPE_FIELD).map(([role, f]) => [f, ROLE_KIND[role as GrammarRole]] as [string, IdKind]),
];
const ID_PATTERN = /^[A-Za-z0-9._:-]+$/;
/** Which providerRefs field belongs to which canonical field (for id-stable). */
const REF_OF: Record<string, string> = Object.fromEntries(
  Object.entries(ENVELOPE_FIELD).flatMap(([role, f]) => (REF_FIELD[role as GrammarRole] ? [[f, REF_FIELD[role as GrammarRole]!]] : [])),
);

interface Lifecycle {
  started?: number; ended?: number; endedBy?: string;
  /** requests: the turn and item the opening named; items: the turn the opening named */
  turnId?: string; itemId?: string;
  /** items: an event of the item said `background: true` (background work, which may outlive its turn) */
  background?: boolean;
}

interface SessionState {
  lastSequence?: number;
  providerIds: Set<string>;
  /** canonical id → the provider id it carried first (id-stable). */
  refOf: Map<string, string>;
  /** Per lifecycle entity of the grammar: canonical id → what was seen of it. */
  life: Record<LifecycleName, Map<string, Lifecycle>>;
  /** Entities the runtime reported open at end (agentnorm#end), by canonical id. */
  reported: Set<string>;
}

type Reporter = (rule: VerifyRule, reason: string, severity?: VerifySeverity) => void;

const ENTITIES = Object.keys(LIFECYCLE) as LifecycleName[];
const fieldOf = (n: LifecycleName) => ENVELOPE_FIELD[LIFECYCLE[n].role]!;
/** Envelope fields of the entities the runtime's end-of-stream report names. */
const REPORTED_FIELDS = [...new Set(ENTITIES.filter((n) => LIFECYCLE[n].verify.openAtEnd).map(fieldOf))];
/** Warnings are the rules documented as "(warning)". */
const severityOf = (rule: VerifyRule): VerifySeverity => (VERIFY_RULES[rule].startsWith("(warning)") ? "warning" : "violation");

/** One lifecycle finding, as its reason is written from. */
interface Finding {
  kind: VerifyFindingKind;
  type: string;
  entity: LifecycleName;
  phase: LifecyclePhase;
  id: string;
  /** What was seen of the entity before this event. */
  x: Lifecycle;
  /** withinEnded: the entity it belongs to. */
  parent?: { id: string; x: Lifecycle };
}

/** The reason of a finding, from the grammar (the entity's role names it; its opening event says what opens it). */
function genericReason(f: Finding): string {
  const l = LIFECYCLE[f.entity];
  const noun = l.role;
  switch (f.kind) {
    case "noId": return `${f.type} names no ${fieldOf(f.entity)}`;
    case "notOpen": return `${f.type} for ${noun} ${f.id}, which no ${l.opens[0]} opened`;
    case "again": return f.phase === "opens" ? `${f.type} for ${noun} ${f.id}, already ${l.opens[0].split(".").pop()} at #${f.x.started}` : `${f.type} for ${noun} ${f.id} after its ${f.x.endedBy} (#${f.x.ended})`;
    case "afterEnd": return `${f.type} for ${noun} ${f.id} after its ${f.x.endedBy} (#${f.x.ended})`;
    case "withinEnded": return `${noun} ${f.id} starts in ${LIFECYCLE[l.within!].role} ${f.parent!.id} after its ${f.parent!.x.endedBy} (#${f.parent!.x.ended})`;
    case "withinNotOpened": return `${noun} ${f.id} starts in ${LIFECYCLE[l.within!].role} ${f.parent!.id}, which no ${LIFECYCLE[l.within!].opens[0]} opened before it`;
    case "withinNoId": return `${noun} ${f.id} starts in no ${LIFECYCLE[l.within!].role}: ${f.type} names no ${fieldOf(l.within!)}`;
  }
}

/** Rules whose reasons read differently from the generic one. */
const REASONS: Partial<Record<VerifyRule, (f: Finding, generic: string) => string>> = {
  "item-not-started": (f, g) => (f.kind === "noId" && f.type === "content.delta" ? `${g}: a delta belongs to an open item` : g),
  "turn-terminal": (f) => `a second terminal event for turn ${f.id}: ${f.type} after ${f.x.endedBy} (#${f.x.ended})`,
  "request-resolved-twice": (f) => `request ${f.id} resolved again (first at #${f.x.ended})`,
  "user-input-not-requested": (f, g) => (f.kind === "noId" && f.phase === "opens" ? `${g}, so no answer can be matched to it` : f.kind === "notOpen" ? `${f.type} for request ${f.id}, which no user-input.requested asked` : g),
  "user-input-twice": (f) => (f.phase === "opens" ? `user input requested again for request ${f.id} (first at #${f.x.started})` : `user input for request ${f.id} resolved again (first at #${f.x.ended})`),
};
/** What the open-at-end warning calls the entity. */
const OPEN_AT_END_NOUN: Partial<Record<VerifyRule, string>> = { "user-input-open-at-end": "user input for request" };

/** The grammar's checks for one event of a lifecycle entity (generated/grammar.gen.ts): which rule a finding breaks. */
function checkLifecycle(e: any, entity: LifecycleName, phase: LifecyclePhase, s: SessionState, report: Reporter): void {
  const l = LIFECYCLE[entity];
  const rules = l.verify[phase];
  const say = (kind: VerifyFindingKind, f: Omit<Finding, "kind" | "type" | "entity" | "phase">) => {
    const rule = rules[kind] as VerifyRule | undefined;
    if (!rule) return false;
    const finding: Finding = { kind, type: e.type, entity, phase, ...f };
    const g = genericReason(finding);
    report(rule, REASONS[rule]?.(finding, g) ?? g, severityOf(rule));
    return true;
  };
  const id = e[fieldOf(entity)];
  if (typeof id !== "string") { say("noId", { id: "", x: {} }); return; }
  const m = s.life[entity];
  const x = m.get(id);
  if (phase === "opens") {
    if (x?.ended !== undefined && say("afterEnd", { id, x })) { /* reported */ }
    else if (x) say("again", { id, x });
    else m.set(id, l.role === "request" ? { started: e.sequence, turnId: e.turnId, itemId: e.itemId } : l.role === "item" ? { started: e.sequence, turnId: e.turnId } : { started: e.sequence });
    if (l.within && (rules.withinEnded || rules.withinNotOpened || rules.withinNoId)) {
      const pid = e[fieldOf(l.within)];
      const p = typeof pid === "string" ? s.life[l.within].get(pid) : undefined;
      if (p?.ended !== undefined && !backgroundOf(e, pid, s)) say("withinEnded", { id, x: x ?? {}, parent: { id: pid, x: p } });
      else if (typeof pid === "string" && !p && !x) say("withinNotOpened", { id, x: {}, parent: { id: pid, x: {} } });
      else if (pid === undefined && !x) say("withinNoId", { id, x: {} });
    }
    return;
  }
  if (!x) {
    say("notOpen", { id, x: {} });
    m.set(id, phase === "ends" ? { ended: e.sequence, endedBy: e.type } : { started: e.sequence });
    return;
  }
  if (x.ended !== undefined) {
    if (!say("afterEnd", { id, x })) say("again", { id, x });
    return;
  }
  if (phase === "ends") {
    x.ended = e.sequence; x.endedBy = e.type;
    // an answer names the turn and item its request named (whichever message answered it)
    if (l.role === "request") for (const k of ["turnId", "itemId"] as const) {
      if (x[k] !== undefined && e[k] !== x[k]) report("request-correlation", `${e.type} for request ${id} names ${k} ${e[k] ?? "(none)"}, its ${l.opens[0]} (#${x.started}) ${x[k]}`);
    }
  }
}

/**
 * Background work outlives its turn: an item may open in a turn that ended when it is nested (parentId) under an
 * item of that turn that is background work (an event of it said `background: true`) and still open.
 */
function backgroundOf(e: any, turnId: string, s: SessionState): boolean {
  if (typeof e.parentId !== "string") return false;
  const p = s.life.item.get(e.parentId);
  return p !== undefined && p.background === true && p.ended === undefined && p.turnId === turnId;
}

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
    if (!s) sessions.set(id, (s = { providerIds: new Set(), refOf: new Map(), life: Object.fromEntries(ENTITIES.map((n) => [n, new Map()])) as SessionState["life"], reported: new Set() }));
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
      // canonical ids are minted and prefixed; provider ids live in providerRefs.
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
      const life = typeof e.type === "string" && Object.hasOwn(EVENT_LIFECYCLE, e.type) ? EVENT_LIFECYCLE[e.type as keyof typeof EVENT_LIFECYCLE] : undefined;
      if (life) {
        checkLifecycle(e, life.entity, life.phase, s, f);
        // background work: an item that said so, and what opens nested under it (its own nested work outlives the turn too)
        if (life.entity === "item" && typeof e.itemId === "string") {
          const x = s.life.item.get(e.itemId);
          const p = typeof e.parentId === "string" ? s.life.item.get(e.parentId) : undefined;
          if (x && x.ended === undefined && (e.payload?.background === true || (life.phase === "opens" && p?.background && p.ended === undefined))) x.background = true;
        }
      }
      else if (e.type === "runtime.warning" && e.raw?.rule === "agentnorm#end") {
        // The runtime's end-of-stream report: this entity is knowingly open.
        for (const field of REPORTED_FIELDS) if (typeof e[field] === "string") s.reported.add(e[field]);
      }
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
        for (const n of ENTITIES) {
          const rule = LIFECYCLE[n].verify.openAtEnd as VerifyRule | undefined;
          if (rule) open(s.life[n], rule, OPEN_AT_END_NOUN[rule] ?? LIFECYCLE[n].role);
        }
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
