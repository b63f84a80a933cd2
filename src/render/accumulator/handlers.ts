/**
 * The dispatch: one handler per canonical event type (our own model, not a provider's), gathered from the files of
 * each concern; a new type in canonical.yaml fails typecheck until one of them handles it.
 */
import type { CanonicalRuntimeEventType } from "../../../generated/canonical.gen.js";
import { ITEM_HANDLERS } from "./items.js";
import { RECORD_HANDLERS } from "./records.js";
import { REQUEST_HANDLERS } from "./requests.js";
import type { Handler } from "./state.js";

const HANDLERS: Record<CanonicalRuntimeEventType, Handler> = { ...RECORD_HANDLERS, ...ITEM_HANDLERS, ...REQUEST_HANDLERS };

/** HANDLERS by type, as a Map (one lookup; only its own keys). */
export const HANDLER_OF: ReadonlyMap<string, Handler> = new Map(Object.entries(HANDLERS));
