/**
 * A browser page rendering the accumulator live from a stream: provider messages arrive as a byte stream (here a
 * recorded Codex app-server session replayed with delays; in an app, `(await fetch(url)).body` or a WebSocket),
 * are normalized in the page (one surface's mapper only: agentnorm/surfaces/codex-app-server) and each change
 * redraws only the blocks it changed (getBlock), never the whole state.
 */
import { createNormalizer } from "agentnorm/surfaces/codex-app-server";
import { createAccumulator } from "agentnorm/accumulator";
import recording from "../node-host/session.ndjson";

const normalizer = createNormalizer();
const acc = createAccumulator({ eventLog: false });
const root = document.getElementById("transcript");
const turns = new Map(); // turnId → element
const steps = new Map(); // stepId → element
const blocks = new Map(); // blockId → element
let redraws = 0;

function turnElement(turnId) {
  if (!turnId) return root;
  let el = turns.get(turnId);
  if (!el) {
    el = document.createElement("section");
    el.className = "turn";
    el.dataset.turnId = turnId;
    const turn = acc.getTurn(turnId);
    el.innerHTML = `<h2>turn ${turn?.index ?? ""}</h2>`;
    root.append(el);
    turns.set(turnId, el);
  }
  return el;
}

function stepElement(stepId, turnId) {
  let el = steps.get(stepId);
  if (!el) {
    const step = acc.getStep(stepId);
    el = document.createElement("div");
    el.className = "step";
    const parent = step?.parentId ? steps.get(step.parentId) : undefined;
    (parent ?? turnElement(turnId)).append(el);
    steps.set(stepId, el);
  }
  return el;
}

function draw(el, block) {
  el.className = `block ${block.kind}`;
  el.dataset.kind = block.kind;
  let text;
  switch (block.kind) {
    case "text": text = `${block.role}: ${block.text}`; break;
    case "thinking": text = `thinking: ${block.summary || block.text}`; break;
    case "tool": text = `${block.command ?? block.title ?? block.toolName ?? block.itemType} [${block.status}]${block.awaitingRequests.length ? " (waiting for approval)" : ""}`; break;
    case "terminal": text = block.text; break;
    case "permission": case "question": text = `${block.requestType ?? block.kind} [${block.state}] ${block.decision ?? ""}`; break;
    case "plan": case "todo": text = block.steps.map((s) => `[${s.status}] ${s.step}`).join("\n"); break;
    case "diff": text = `diff: ${block.files.map((f) => f.path).join(", ")}`; break;
    default: text = block.kind === "status" ? block.message : block.kind;
  }
  el.textContent = text;
  redraws++;
}

acc.subscribe((change) => {
  for (const id of change.changedBlockIds) {
    const block = acc.getBlock(id, change.sessionId);
    if (!block) continue;
    let el = blocks.get(id);
    if (!el) {
      el = document.createElement("div");
      el.dataset.blockId = id;
      stepElement(change.stepId, change.turnId).append(el);
      blocks.set(id, el);
    }
    draw(el, block);
  }
  const turn = change.turnId ? acc.getTurn(change.turnId) : undefined;
  if (turn) turnElement(turn.turnId).querySelector("h2").textContent = `turn ${turn.index} — ${turn.state}`;
});

/** Replays the recording as a byte stream, a few lines at a time (what a network stream looks like). */
function recordedStream(text, delayMs) {
  const bytes = new TextEncoder().encode(text);
  let at = 0;
  return new ReadableStream({
    async pull(controller) {
      if (at >= bytes.length) return controller.close();
      await new Promise((r) => setTimeout(r, delayMs));
      const end = Math.min(bytes.length, at + 997); // chunks cut lines anywhere
      controller.enqueue(bytes.slice(at, end));
      at = end;
    },
  });
}

async function run(stream) {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let nl;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      for (const event of normalizer.pushLine(line)) acc.apply(event);
    }
  }
  for (const event of [...normalizer.pushLine(buffer), ...normalizer.end()]) acc.apply(event);
  document.getElementById("status").textContent = `done: ${acc.snapshot().eventCount} events, ${redraws} block redraws`;
  document.body.dataset.done = "true";
}

run(recordedStream(recording, Number(new URLSearchParams(location.search).get("delay") ?? 20)));
