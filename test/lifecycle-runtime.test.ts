/**
 * The runtime keeps every lifecycle entity of the grammar to "each opening and ending event once": a row that
 * emits an entity's opening twice, or anything after its end, gets a runtime.warning (agentnorm#late) instead.
 * A hand-built table with no guards shows it for items and tasks (the generated tables' default guards
 * usually stop these before the runtime sees them).
 */
import { describe, expect, it } from "vitest";
import { createNormalizer, LATE } from "../src/normalize/normalizer.js";
import { counterIds, steppingClock } from "../src/normalize/ids.js";
import type { RowContext, SurfaceTable } from "../src/normalize/table-types.js";

const row = (rule: string, run: (m: any, cx: RowContext) => void) => ({ rule: `mini#${rule}`, line: 1, run: (m: any, cx: RowContext) => (run(m, cx), true) });
const table: SurfaceTable = {
  surface: "mini", provider: "codex", protocol: "tagged", file: "mini.yaml", tags: { event: "type" },
  upstream: { package: "mini", version: "0" }, sources: { event: "codex.eventmsg" }, ignored: {}, ignoreReasons: {},
  rows: {
    event: {
      start: [row("start", (m, cx) => { cx.ref({ role: "item", op: "use", field: "id", required: true }, m.id); cx.emit("item.started", { itemType: "assistant_message", status: "inProgress" }); })],
      done: [row("done", (m, cx) => { cx.ref({ role: "item", op: "use", field: "id", required: true }, m.id); cx.emit("item.completed", { itemType: "assistant_message", status: "completed" }); })],
      taskStart: [row("task-start", (m, cx) => { cx.ref({ role: "task", op: "use", field: "id", required: true }, m.id); cx.emit("task.started", { taskId: cx.id("task") }); })],
      taskEnd: [row("task-end", (m, cx) => { cx.ref({ role: "task", op: "use", field: "id", required: true }, m.id); cx.emit("task.completed", { taskId: cx.id("task"), status: "completed" }); })],
      taskProgress: [row("task-progress", (m, cx) => { cx.ref({ role: "task", op: "use", field: "id", required: true }, m.id); cx.emit("task.progress", { taskId: cx.id("task"), description: "x" }); })],
    },
  },
};
const run = (msgs: unknown[]) => {
  const n = createNormalizer({ surface: table, ids: counterIds(), clock: steppingClock() });
  return msgs.map((m) => n.push(m).map((e) => (e.type === "runtime.warning" ? `${e.raw?.rule} ${(e.payload as any).message}` : e.type)));
};

describe("once per entity, from the grammar", () => {
  it("an item's second item.started, and anything after its item.completed, is a late warning", () => {
    expect(run([{ type: "start", id: "a" }, { type: "start", id: "a" }, { type: "done", id: "a" }, { type: "done", id: "a" }, { type: "start", id: "a" }])).toEqual([
      ["item.started"],
      [`${LATE} mini#start: item.started for an item that already began (a late or repeated message) — not emitted`],
      ["item.completed"],
      [`${LATE} mini#done: item.completed for an item that already ended (a late or repeated message) — not emitted`],
      [`${LATE} mini#start: item.started for an item that already began (a late or repeated message) — not emitted`],
    ]);
  });

  it("a task (in the grammar like any entity): started once, nothing after its task.completed", () => {
    expect(run([{ type: "taskStart", id: "t" }, { type: "taskProgress", id: "t" }, { type: "taskStart", id: "t" }, { type: "taskEnd", id: "t" }, { type: "taskProgress", id: "t" }])).toEqual([
      ["task.started"],
      ["task.progress"],
      [`${LATE} mini#task-start: task.started for a task that already began (a late or repeated message) — not emitted`],
      ["task.completed"],
      [`${LATE} mini#task-progress: task.progress for a task that already ended (a late or repeated message) — not emitted`],
    ]);
  });

  it("another id is another entity", () => {
    expect(run([{ type: "start", id: "a" }, { type: "start", id: "b" }]).flat()).toEqual(["item.started", "item.started"]);
  });
});
