/**
 * The runtime's view of the lifecycle grammar (generated/grammar.gen.ts, from canonical.yaml): per event type,
 * the entity and part it belongs to, as bits on the entity record. What the runtime adds of its own is how it
 * starts an entity whose body or end came first (the payload of the synthesized opening event).
 */
import { EVENT_LIFECYCLE, LIFECYCLE, NEEDS_ID, type GrammarRole, type LifecycleName, type LifecyclePhase } from "../../generated/grammar.gen.js";
import type { Entity } from "./entities.js";
import type { Role } from "./table-types.js";

/** The grammar's roles are the RowContext's roles (a compile-time check both ways). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const rolesAgree: Same<Role, GrammarRole> = true;
void rolesAgree;

export interface EventLife {
  entity: LifecycleName;
  role: Role;
  phase: LifecyclePhase;
  /** Entity.life bit: an opening event of this entity was emitted. */
  began: number;
  /** Entity.life bit: an ending event of this entity was emitted. */
  ended: number;
  /** Opening events: the entity it belongs to (an opening after that one ended belongs to none; one that never
   *  began is opened first when the runtime knows how: `implicit`). */
  within?: { role: Role; began: number; ended: number; implicit?: ImplicitStart };
  /** Body and ending events: how the runtime opens the entity first, when it did not begin. */
  implicit?: ImplicitStart;
}

export interface ImplicitStart {
  /** The opening event the runtime synthesizes. */
  type: string;
  payload(payload: any, e: Entity): Record<string, unknown>;
  /** Why the event is rejected when the synthesized start was not canonical. */
  failure: string;
}

/** The item type a content stream implies (for an item.started the runtime synthesizes before a delta). */
const STREAM_ITEM: Record<string, string | undefined> = {
  assistant_text: "assistant_message", reasoning_text: "reasoning", reasoning_summary_text: "reasoning", plan_text: "plan",
  command_output: "command_execution", file_change_output: "file_change",
};

/** Entities the runtime opens itself when their body or end comes first, and the payload of that opening. */
const IMPLICIT_PAYLOAD: Partial<Record<LifecycleName, Omit<ImplicitStart, "type">>> = {
  item: {
    payload: (p, e) => ({
      itemType: (typeof p.itemType === "string" ? p.itemType : (e.state.itemType as string | undefined) ?? STREAM_ITEM[p.streamKind]) ?? "unknown",
      status: "inProgress",
      ...(typeof p.title === "string" && p.title.length <= 1000 ? { title: p.title } : {}),
    }),
    failure: "its item could not be started",
  },
  request: { payload: (p) => ({ requestType: typeof p.requestType === "string" ? p.requestType : "unknown" }), failure: "its request could not be opened" },
  "user-input": { payload: () => ({ questions: null }), failure: "its user-input request could not be made" },
  // a turn in a thread that never started (a stream joined mid-session): the thread starts first
  thread: { payload: (_p, e) => (e.providerId !== undefined ? { providerThreadId: String(e.providerId) } : {}), failure: "its thread could not be started" },
};

const NAMES = Object.keys(LIFECYCLE) as LifecycleName[];
const BEGAN = (n: LifecycleName) => 1 << (2 * NAMES.indexOf(n));
const ENDED = (n: LifecycleName) => 2 << (2 * NAMES.indexOf(n));

/** Event type → its lifecycle (a Map: event types are data). */
export const EVENT_LIFE = new Map<string, EventLife>(
  Object.entries(EVENT_LIFECYCLE).map(([type, { entity, phase }]) => {
    const l = LIFECYCLE[entity];
    const wi = phase === "opens" ? l.within : undefined;
    const wImp = wi ? IMPLICIT_PAYLOAD[wi] : undefined;
    const within = wi ? { role: LIFECYCLE[wi].role as Role, began: BEGAN(wi), ended: ENDED(wi), ...(wImp ? { implicit: { type: LIFECYCLE[wi].opens[0], ...wImp } } : {}) } : undefined;
    const imp = phase !== "opens" ? IMPLICIT_PAYLOAD[entity] : undefined;
    return [type, {
      entity, role: l.role as Role, phase, began: BEGAN(entity), ended: ENDED(entity),
      ...(within ? { within } : {}), ...(imp ? { implicit: { type: l.opens[0], ...imp } } : {}),
    }];
  }),
);

/** Event type → the role it is never emitted without. */
export const NEEDS = new Map<string, Role>(Object.entries(NEEDS_ID) as [string, Role][]);

/** Per role, the Entity.life bit of its own lifecycle's ending (an item's item.completed, a turn's turn.completed). */
export const ROLE_ENDED: Partial<Record<Role, number>> = Object.fromEntries(NAMES.filter((n) => LIFECYCLE[n].role === n).map((n) => [n, ENDED(n)]));

/** The runtime's end-of-stream report names what is still open of these roles (the verifier's open-at-end rules), innermost first. */
export const REPORTED_OPEN: Role[] = [...new Set(NAMES.filter((n) => LIFECYCLE[n].verify.openAtEnd).map((n) => LIFECYCLE[n].role as Role))];

/** "an item", "a request" */
export const article = (role: string): string => (/^[aeiou]/.test(role) ? `an ${role}` : `a ${role}`);

/** The event an item's end is (closeOpen completes open items with it). */
export const ITEM_END = LIFECYCLE.item.ends[0];
