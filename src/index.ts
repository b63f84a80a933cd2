/**
 * agentnorm — one canonical, typed event stream from every coding agent's protocol.
 *
 *   import { createNormalizer } from "agentnorm";
 *   const n = createNormalizer({ surface: "codex-app-server" });
 *   for (const line of lines) for (const event of n.pushLine(line)) render(event);
 *   n.end();
 *
 * This root holds the public API and runs in a browser or webview as well as in Node. Other entry points:
 * agentnorm/accumulator (the render accumulator alone), agentnorm/surfaces/<surface> (one surface's normalizer),
 * agentnorm/validate (the schema check), agentnorm/compatibility (the matrix; Node), agentnorm/tables (the DSL's
 * compiled tables), and the JSON Schemas (agentnorm/schema.json, …).
 */
export { createNormalizer, serializeEvent } from "./normalize/normalizer.js";
export { shareRawPayloads, createRawResolver, resolveRawPayloads, hasRawLink, SHARE_MIN } from "./normalize/raw-stream.js";
export type { RawResolver } from "./normalize/raw-stream.js";
export { escapeTerminal, escapeJsonOutput } from "./render/terminal-safe.js";
export { unwrap, unwrapCaptureLine } from "./capture/unwrap.js";
export type { CanonicalEvent, Direction, Normalizer, NormalizerOptions, NormalizerStats, PushOptions } from "./normalize/normalizer.js";
export { counterIds, randomIds, steppingClock } from "./normalize/ids.js";
export type { IdFactory } from "./normalize/ids.js";
export { renderTranscript } from "./render/transcript.js";
export { createAccumulator, snapshotBlocks, ACCUMULATOR_SNAPSHOT_VERSION } from "./render/accumulator.js";
export { createChatEventProjector, toChatEvents, checkChatEvents, createChatEventChecker, chatEventLine, legacyMarkers, CHAT_EVENT_SCHEMA_VERSION, CHAT_EVENT_KINDS, CHAT_EVENT_PHASES } from "./render/chat-event.js";
export type {
  ChatEvent, ChatEventKind, ChatEventPhase, ChatEventProjector, ChatEventTool, ChatEventDiff, ChatEventDiffFile, ChatEventPermission,
  ChatEventQuestion, ChatEventHostCall, ChatEventOption, ChatEventPlan, ChatEventTask, ChatEventMode, ChatEventStatus,
} from "./render/chat-event.js";
export type {
  Accumulator, AccumulatorOptions, AccumulatorChange, AccumulatorSnapshot, AccumulatorStats, RetiredCounts, Session as RenderSession, Turn as RenderTurn, Step as RenderStep,
  Block as RenderBlock, BlockKind, BlockBase, TextBlock, ThinkingBlock, ToolBlock, ToolStatus, TerminalBlock, DiffBlock, DiffFile, PlanBlock, PlanStep,
  RequestBlock, TaskBlock, UsageBlock, ModeBlock, StatusBlock, Problem, ProblemKind, EventRef,
} from "./render/accumulator.js";
export { SURFACE_NAMES } from "../generated/surfaces.gen.js";
export type { SurfaceName } from "../generated/surfaces.gen.js";
export { validateCanonicalEvent, isCanonicalEvent, parseEvent, InvalidEventError } from "./validate.js";
export type { CanonicalEventValidator, CanonicalValidationError } from "./validate.js";
export { AgentnormError, AnswerError, ERROR_CODES, InvalidOptionError, UnknownSurfaceError } from "./errors.js";
export type { AgentnormErrorCode } from "./errors.js";
export * from "../generated/canonical.gen.js";
export { answerRequest, isRequestOf, requestKindOf } from "./answer/answer.js";
export type { AnswerOptions, HostCallReply, PermissionDecision, PermissionReply, QuestionAnswers, QuestionReply, ReplyByKind, ReplyFor, ReplyForEvent, RequestAnswer, RequestOpenedOf, RequestReply } from "./answer/answer.js";
export { toClaudePermissionResult } from "./answer/claude-permission.js";
export type { ClaudePermissionResult, CanonicalPermissionDecision, ClaudeDecisionClassification, ClaudeElicitationResult, ClaudeUserDialogResult } from "./answer/claude-permission.js";
export { toAcpPermissionResponse } from "./answer/acp-permission.js";
export type { AcpPermissionOption, AcpPermissionResponse, CanonicalAcpDecision } from "./answer/acp-permission.js";
export { VERSION } from "./version.js";
export { CAPTURE_SCHEMA_VERSION, CAPTURE_STAGES, createCaptureWriter, nativeEventType, parseCaptureLine, readCapture, serializeRecord, serializeRecords, validateRecord, formatCaptureError } from "./capture/capture.js";
export type { CaptureEnvelope, CaptureError, CaptureReadResult, CaptureRecord, CaptureRecordBase, CaptureStage, CaptureWriter, CaptureWriterOptions, FixtureRecord, RecordMeta } from "./capture/capture.js";
export { createRedactor, isSecretKey } from "./capture/redact.js";
export type { Redaction, RedactionKind, RedactOptions, Redactor } from "./capture/redact.js";
export { canonicalIdMapper, capturingNormalizer, comparableEvents, convertRecording, diffLines, eventsSnapshot, replayFixture, sanitizeCapture } from "./capture/replay.js";
export type { CapturingNormalizer, ReplayMode, ReplayOptions, ReplayResult, SanitizeOptions } from "./capture/replay.js";
export type { LegacyProjection, SnapshotFn } from "./render/render-hooks.js";
export { toOpencodePermissionReply, toOpencodePermissionReplyBody, toOpencodePermissionResponseBodyV1, toOpencodeQuestionReplyBody } from "./answer/opencode-reply.js";
export type { OpencodePermissionReply, OpencodePermissionReplyBody, OpencodePermissionResponseBodyV1, OpencodeQuestionReplyBody, CanonicalOpencodeDecision } from "./answer/opencode-reply.js";
export { createVerifier, verifyEvents, formatFinding, VERIFY_RULES } from "./verify/verify.js";
export type { StreamVerifier, VerifyFinding, VerifyResult, VerifyRule, VerifySeverity } from "./verify/verify.js";
