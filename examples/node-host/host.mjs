#!/usr/bin/env node
/**
 * A Node host that spawns nothing: it replays a recorded Codex app-server session (session.ndjson, both directions)
 * as if the agent were talking to it, renders the conversation from the accumulator, and answers each permission
 * request itself with the reverse API (answerRequest) instead of the recorded client. Each answer is checked against
 * what the real client sent at that point of the recording.
 *
 *   npm run build && node examples/node-host/host.mjs
 */
import { readFileSync } from "node:fs";
import { answerRequest, createNormalizer, EventType } from "agentnorm";
import { createAccumulator } from "agentnorm/accumulator";

const lines = readFileSync(new URL("./session.ndjson", import.meta.url), "utf8").split("\n").filter((l) => l.trim());
const normalizer = createNormalizer({ surface: "codex-app-server" });
const acc = createAccumulator({ eventLog: false });

/** Questions asked (user-input.requested), by canonical request id. */
const questions = new Map();

/** The host's policy: run the tests and edit files, nothing else; to a question, the first (recommended) option. */
function reply(opened) {
  if (opened.payload.requestType === "tool_user_input") {
    // canonical questions (docs/requests.md): answers per question id, by option id
    const asked = opened.payload.questions ?? questions.get(opened.requestId) ?? [];
    return { decision: "answered", answers: Object.fromEntries(asked.map((q) => [q.id, q.options?.[0]?.id ?? ""])) };
  }
  if (opened.payload.requestType === "file_change_approval") return { decision: "allow_once" };
  return { decision: /npm test/.test(opened.payload.detail ?? "") ? "allow_once" : "reject_once" };
}

/** Provider request id → the answer this host sent (so the recorded client's answer is skipped, and compared). */
const answered = new Map();
let matches = 0;
let mismatches = 0;

function handle(events) {
  for (const event of events) {
    acc.apply(event);
    if (event.type === EventType.UserInputRequested) questions.set(event.requestId, event.payload.questions);
    if (event.type === EventType.RequestOpened) {
      const r = reply(event);
      const answer = answerRequest(event, r);
      // A real host writes answer.message to the agent (here: the normalizer sees it as the client's message).
      console.log(`? ${event.payload.requestType}: ${event.payload.detail ?? ""} → ${r.decision}: ${JSON.stringify(answer.message)}`);
      answered.set(event.providerRefs.providerRequestId, answer.message);
      handle(normalizer.push(answer.message, { direction: "out" }));
    }
    if (event.type === EventType.RequestResolved) console.log(`  resolved: ${event.payload.decision ?? "(no decision)"}`);
  }
}

for (const line of lines) {
  const message = JSON.parse(line);
  const id = message.id === undefined ? undefined : String(message.id);
  if (id !== undefined && !("method" in message) && answered.has(id)) {
    // The recorded client's answer to a request this host answered: compare, don't replay it.
    const ours = answered.get(id);
    answered.delete(id);
    const same = JSON.stringify(ours.result) === JSON.stringify(message.result);
    same ? matches++ : mismatches++;
    console.log(`  the recorded client answered ${JSON.stringify(message.result)}: ${same ? "same answer" : "DIFFERENT"}`);
    continue;
  }
  handle(normalizer.pushLine(line));
}
handle(normalizer.end());

const session = acc.getSession();
for (const turn of session.turns) {
  console.log(`── turn ${turn.index} (${turn.state}) ──`);
  for (const step of turn.steps) {
    for (const block of step.blocks) {
      if (block.kind === "text") console.log(`${block.role}: ${block.text.slice(0, 100)}`);
      else if (block.kind === "tool") console.log(`tool ${block.toolName ?? block.itemType} [${block.status}] ${block.command ?? block.title ?? ""}`);
      else if (block.kind === "permission") console.log(`permission ${block.requestType} [${block.state}] ${block.decision ?? ""}`);
    }
  }
}
console.log(`answers: ${matches} same as the recorded client, ${mismatches} different`);
process.exitCode = mismatches ? 1 : 0;
