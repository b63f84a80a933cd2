/**
 * agentnorm — one canonical, typed event stream from every coding agent's protocol.
 *
 *   import { createNormalizer } from "agentnorm";
 *   const n = createNormalizer({ surface: "codex-app-server" });
 *   for (const line of lines) for (const event of n.pushLine(line)) render(event);
 *   n.end();
 */
export { createNormalizer, serializeEvent, unwrap } from "./normalizer.js";
export type { CanonicalEvent, Direction, Normalizer, NormalizerOptions, NormalizerStats, PushOptions } from "./normalizer.js";
export { counterIds, randomIds, steppingClock } from "./ids.js";
export type { IdFactory } from "./ids.js";
export { renderTranscript } from "./transcript.js";
export { createAccumulator, snapshotBlocks, ACCUMULATOR_SNAPSHOT_VERSION } from "./accumulator.js";
export { createChatEventProjector, toChatEvents, checkChatEvents, createChatEventChecker, chatEventLine, legacyMarkers, CHAT_EVENT_SCHEMA_VERSION, CHAT_EVENT_KINDS, CHAT_EVENT_PHASES } from "./chat-event.js";
export type {
  ChatEvent, ChatEventKind, ChatEventPhase, ChatEventProjector, ChatEventTool, ChatEventDiff, ChatEventDiffFile, ChatEventPermission,
  ChatEventQuestion, ChatEventPlan, ChatEventTask, ChatEventMode, ChatEventStatus,
} from "./chat-event.js";
export type {
  Accumulator, AccumulatorOptions, AccumulatorChange, AccumulatorSnapshot, AccumulatorStats, RetiredCounts, Session as RenderSession, Turn as RenderTurn, Step as RenderStep,
  Block as RenderBlock, BlockKind, BlockBase, TextBlock, ThinkingBlock, ToolBlock, ToolStatus, TerminalBlock, DiffBlock, DiffFile, PlanBlock, PlanStep,
  RequestBlock, TaskBlock, UsageBlock, ModeBlock, StatusBlock, Problem, ProblemKind, EventRef,
} from "./accumulator.js";
export { compatibilityMatrix, compatibilityMarkdown } from "./matrix.js";
export { SURFACES, SURFACE_NAMES } from "../generated/surfaces.gen.js";
export { validateCanonicalEvent } from "../generated/validators/canonical-event.gen.js";
export type { SurfaceTable, Row, RowContext, Kind, Role, Op } from "./table-types.js";
export * from "../generated/canonical.gen.js";
export { toClaudePermissionResult } from "./claude-permission.js";
export type { ClaudePermissionResult, CanonicalPermissionDecision } from "./claude-permission.js";
export { toAcpPermissionResponse } from "./acp-permission.js";
export type { AcpPermissionOption, AcpPermissionResponse, CanonicalAcpDecision } from "./acp-permission.js";
export { VERSION } from "./version.js";
export { CAPTURE_SCHEMA_VERSION, CAPTURE_STAGES, createCaptureWriter, nativeEventType, parseCaptureLine, readCapture, serializeRecord, serializeRecords, validateRecord, formatCaptureError } from "./capture.js";
export type { CaptureEnvelope, CaptureError, CaptureReadResult, CaptureRecord, CaptureRecordBase, CaptureStage, CaptureWriter, CaptureWriterOptions, FixtureRecord, RecordMeta } from "./capture.js";
export { createRedactor, isSecretKey } from "./redact.js";
export type { Redaction, RedactionKind, RedactOptions, Redactor } from "./redact.js";
export { canonicalIdMapper, capturingNormalizer, comparableEvents, convertRecording, diffLines, eventsSnapshot, replayFixture, sanitizeCapture, unwrapCaptureLine } from "./replay.js";
export type { CapturingNormalizer, ReplayMode, ReplayOptions, ReplayResult, SanitizeOptions } from "./replay.js";
export type { LegacyProjection, SnapshotFn } from "./render-hooks.js";
export { toOpencodePermissionReply, toOpencodePermissionReplyBody, toOpencodePermissionResponseBodyV1, toOpencodeQuestionReplyBody } from "./opencode-reply.js";
export type { OpencodePermissionReply, OpencodePermissionReplyBody, OpencodePermissionResponseBodyV1, OpencodeQuestionReplyBody, CanonicalOpencodeDecision } from "./opencode-reply.js";
export { createVerifier, verifyEvents, formatFinding, VERIFY_RULES } from "./verify.js";
export type { StreamVerifier, VerifyFinding, VerifyResult, VerifyRule, VerifySeverity } from "./verify.js";
