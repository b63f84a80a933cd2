/**
 * Compile-time checks of View, Member and RowPayload (src/normalize/table-types.ts), the types generated rows read
 * messages and build payloads through. Part of `npm run typecheck`: a line marked @ts-expect-error that compiles
 * fails the typecheck, so each one proves tsc rejects what it shows.
 */
import type { Member, RowPayload, View } from "../../src/normalize/table-types.js";
import type * as Codex from "../../generated/upstream/codex-app-server.gen.js";
import type * as Claude from "../../generated/upstream/claude-transcript.gen.js";
import type { RuntimeEventPayloadByType } from "../../generated/canonical.gen.js";
import type { ListElement } from "../../src/normalize/row-util.js";

declare const started: View<Member<Codex.ServerNotification, "method", "item/started">>;
// A field of some member of a union reads as that field's type, or undefined.
export const id: string | undefined = started.params?.item?.id;
export const text: string | undefined = started.params?.item?.text; // only some ThreadItem members have text
// @ts-expect-error a field no member has
export const typo = started.params?.item?.idd;
// @ts-expect-error a field of another method's params
export const other = started.params?.delta;
// @ts-expect-error the field's type is kept
export const wrong: number | undefined = started.params?.item?.id;

// A value that is a string or a list of blocks: indexes and keys read as undefined on the string, it still compares.
declare const line: View<Member<Claude.TranscriptLine, "type", "user">>;
export const interrupted = line.message?.content === "[Request interrupted by user]";
export const firstType: string | undefined = line.message?.content?.[0]?.type;
// @ts-expect-error not a key of any content block
export const blockTypo = line.message?.content?.[0]?.tpye;

// Payloads: absent and null values pass (the runtime validates the event), keys and shapes are checked.
export const ok: RowPayload<RuntimeEventPayloadByType["item.started"]> = { itemType: "reasoning", status: undefined, detail: started.params?.item?.id };
// @ts-expect-error not a field of the payload
export const badKey: RowPayload<RuntimeEventPayloadByType["item.started"]> = { itemTpye: "reasoning" };
// @ts-expect-error an object where a string belongs
export const badShape: RowPayload<RuntimeEventPayloadByType["item.started"]> = { detail: { text: "x" } };

// A value the schema leaves open reads as a JsonView: any key, compared with constants, fits any payload field.
declare const open: View<unknown>;
export const openRead = open?.a?.[0]?.["b-c"] === "x" || open?.n === 3 || open?.flag === true;
export const openOk: RowPayload<RuntimeEventPayloadByType["item.started"]> = { itemType: "reasoning", detail: open?.detail };
// @ts-expect-error an open value is no string until checked
export const openString: string = open?.detail;
// @ts-expect-error an object literal is not a JsonView: it still needs a payload field's shape
export const literalShape: RowPayload<RuntimeEventPayloadByType["item.started"]> = { detail: {} };
// @ts-expect-error the JsonView of an open value has no methods
export const openCall = open?.trim();

// A $list element: its schema's fields keep their types; other keys read as JsonViews.
declare const entry: ListElement<NonNullable<NonNullable<typeof started.params>["item"]>[]>;
export const entryId: string | undefined = entry.id;
export const entryOther = entry.notAField === "x";
// @ts-expect-error the field's type is kept
export const entryWrong: number = entry.id;
