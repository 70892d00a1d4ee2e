// The sidecar protocol (protocol.md, part 2) as Java records, one a message. Each record names
// the place in protocol.schema.json it mirrors (@Schema); ProtocolSchemaTest walks both and fails
// when a property, a required field, a type or an enum value differs, so a protocol change the
// Java side misses fails the build. Optional fields are boxed (null = absent: Gson leaves nulls
// out when it writes); free-form provider payloads stay JsonElement, kept verbatim.
package dev.levelcode.sessions.core.rpc;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.annotations.SerializedName;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.List;
import java.util.Map;

public final class Protocol {
  private Protocol() {}

  /** The protocol version this client speaks (ServerCapability.version). */
  public static final int VERSION = 1;

  /** The JSON pointer into protocol.schema.json a record mirrors. */
  @Retention(RetentionPolicy.RUNTIME)
  @Target(ElementType.TYPE)
  public @interface Schema {
    String value();
  }

  /** A request or notification: its name, direction and message types. */
  public record Method<P, R>(String name, boolean notification, boolean serverToClient, Class<P> params, Class<R> result) {}

  public static final Method<NewParams, NewResult> NEW = req("session/new", NewParams.class, NewResult.class);
  public static final Method<AppendParams, AppendResult> APPEND = req("session/append", AppendParams.class, AppendResult.class);
  public static final Method<ListParams, ListResult> LIST = req("session/list", ListParams.class, ListResult.class);
  public static final Method<ReadParams, ReadResult> READ = req("session/read", ReadParams.class, ReadResult.class);
  public static final Method<ResumeParams, ResumeResult> RESUME = req("session/resume", ResumeParams.class, ResumeResult.class);
  public static final Method<ForkParams, ForkResult> FORK = req("session/fork", ForkParams.class, ForkResult.class);
  public static final Method<HandoffParams, HandoffResult> HANDOFF = req("session/handoff", HandoffParams.class, HandoffResult.class);
  public static final Method<CompactParams, ResumeResult> COMPACT = req("session/compact", CompactParams.class, ResumeResult.class);
  public static final Method<ExportParams, ExportResult> EXPORT = req("session/export", ExportParams.class, ExportResult.class);
  public static final Method<SearchParams, SearchResult> SEARCH = req("session/search", SearchParams.class, SearchResult.class);
  public static final Method<RenameParams, RenameResult> RENAME = req("session/rename", RenameParams.class, RenameResult.class);
  public static final Method<IdParams, IdResult> DELETE = req("session/delete", IdParams.class, IdResult.class);
  public static final Method<IdParams, RestoreResult> RESTORE = req("session/restore", IdParams.class, RestoreResult.class);
  public static final Method<RelinkParams, RelinkResult> RELINK = req("session/relink", RelinkParams.class, RelinkResult.class);
  public static final Method<IdParams, SealResult> SEAL = req("session/seal", IdParams.class, SealResult.class);
  public static final Method<IdParams, ReleaseResult> RELEASE = req("session/release", IdParams.class, ReleaseResult.class);
  public static final Method<PinParams, PinResult> PIN = req("session/pin", PinParams.class, PinResult.class);
  public static final Method<ArchiveParams, ArchiveResult> ARCHIVE = req("session/archive", ArchiveParams.class, ArchiveResult.class);
  public static final Method<RetentionParams, RetentionResult> RETENTION =
      req("session/retention", RetentionParams.class, RetentionResult.class);
  public static final Method<ReindexParams, ReindexResult> REINDEX = req("session/reindex", ReindexParams.class, ReindexResult.class);
  public static final Method<ImportParams, ImportResult> IMPORT = req("session/import", ImportParams.class, ImportResult.class);
  public static final Method<TitleParams, TitleResult> TITLE =
      new Method<>("session/title", false, true, TitleParams.class, TitleResult.class);
  public static final Method<SummarizeParams, SummarizeResult> SUMMARIZE =
      new Method<>("session/summarize", false, true, SummarizeParams.class, SummarizeResult.class);
  public static final Method<DidChangeParams, Void> DID_CHANGE =
      new Method<>("session/didChange", true, true, DidChangeParams.class, Void.class);
  public static final Method<ImportProblemParams, Void> IMPORT_PROBLEM =
      new Method<>("$/levelcode/importProblem", true, true, ImportProblemParams.class, Void.class);

  /** Every method of the protocol, in protocol.schema.json's x-methods order. */
  public static final List<Method<?, ?>> METHODS = List.of(NEW, APPEND, LIST, READ, RESUME, FORK, HANDOFF, COMPACT, EXPORT, SEARCH,
      RENAME, DELETE, RESTORE, RELINK, SEAL, RELEASE, PIN, ARCHIVE, RETENTION, REINDEX, IMPORT, TITLE, SUMMARIZE, DID_CHANGE,
      IMPORT_PROBLEM);

  private static <P, R> Method<P, R> req(String name, Class<P> p, Class<R> r) {
    return new Method<>(name, false, false, p, r);
  }

  /** Error codes (protocol.md, "Errors"; x-errors of the schema). */
  public static final class Errors {
    private Errors() {}
    public static final int PARSE_ERROR = -32700;
    public static final int INVALID_REQUEST = -32600;
    public static final int METHOD_NOT_FOUND = -32601;
    public static final int INVALID_PARAMS = -32602;
    public static final int INTERNAL_ERROR = -32603;
    public static final int SERVER_NOT_INITIALIZED = -32002;
    public static final int REQUEST_CANCELLED = -32800;
    public static final int CONTENT_MODIFIED = -32801;
    public static final int UNKNOWN_SESSION = -33001;
    public static final int BAD_SESSION_ID = -33002;
    public static final int INVALID_PROJECT = -33003;
    public static final int SESSION_LOCKED = -33004;
    public static final int SCHEMA_TOO_NEW = -33005;
    public static final int CORRUPT_SESSION = -33006;
    public static final int NO_SPACE = -33007;
    public static final int READ_ONLY_STORE = -33008;
    public static final int STORE_IO = -33009;
    public static final int FEATURE_UNAVAILABLE = -33010;
    public static final int CALLBACK_FAILED = -33011;
    public static final int HANDOFF_FAILED = -33012;
    public static final int SESSION_CONFLICT = -33013;
  }

  // ---- initialize ----

  @Schema("#/$defs/ClientCapability")
  public record ClientCapability(List<String> callbacks) {}

  @Schema("#/$defs/InitializationOptions")
  public record InitializationOptions(Integer consentThreshold, JsonElement followImports, Integer autoArchiveDays,
      RetentionRules retention, String timeZone) {
    public InitializationOptions(Integer consentThreshold, JsonElement followImports) {
      this(consentThreshold, followImports, null, null, null);
    }
    public InitializationOptions(Integer consentThreshold, JsonElement followImports, Integer autoArchiveDays,
        RetentionRules retention) {
      this(consentThreshold, followImports, autoArchiveDays, retention, null);
    }
  }

  /** Retention's rules (session/retention's defaults; applied, archiving only, at start-up). */
  @Schema("#/$defs/InitializationOptions/properties/retention")
  public record RetentionRules(Integer keep, Integer maxAgeDays) {}

  public enum Feature {
    @SerializedName("export") EXPORT,
    @SerializedName("search") SEARCH,
    @SerializedName("fork") FORK,
    @SerializedName("progress") PROGRESS,
    @SerializedName("cancel") CANCEL,
    @SerializedName("didChange") DID_CHANGE,
    @SerializedName("resume.planner") RESUME_PLANNER,
    @SerializedName("resume.compact") RESUME_COMPACT,
    @SerializedName("seal.title") SEAL_TITLE,
    @SerializedName("reindex") REINDEX,
    @SerializedName("import") IMPORT,
    @SerializedName("fork.atTurn") FORK_AT_TURN,
    @SerializedName("restore") RESTORE,
    @SerializedName("relink") RELINK,
    @SerializedName("lifecycle") LIFECYCLE,
    @SerializedName("resume.targets") RESUME_TARGETS,
    @SerializedName("handoff") HANDOFF
  }

  public enum Watch {
    @SerializedName("watch") WATCH,
    @SerializedName("poll") POLL
  }

  @Schema("#/$defs/ServerCapability")
  public record ServerCapability(int version, List<Feature> features, String store, Watch didChange, List<ToolInfo> tools) {}

  /** One AI tool the sidecar knows: its id, its label, and where it can continue a session. */
  @Schema("#/$defs/ServerCapability/properties/tools/items")
  public record ToolInfo(String id, String label, boolean continueIn, ToolHandoff handoff) {}

  @Schema("#/$defs/ServerCapability/properties/tools/items/properties/handoff")
  public record ToolHandoff(String bin, String install) {}

  // ---- client to server ----

  @Schema("#/$defs/SessionNewParams")
  public record NewParams(String project, String model) {}

  @Schema("#/$defs/SessionNewResult")
  public record NewResult(String id, String project, String createdAt) {}

  @Schema("#/$defs/SessionAppendParams")
  public record AppendParams(String id, List<JsonObject> events, Boolean release, Integer expectedSeq) {
    public AppendParams(String id, List<JsonObject> events) {
      this(id, events, null, null);
    }
  }

  @Schema("#/$defs/SessionAppendResult")
  public record AppendResult(int appended, int firstSeq, int lastSeq) {}

  @Schema("#/$defs/SessionListParams")
  public record ListParams(String project, Boolean all, Integer limit, String cursor, Boolean archived) {
    public ListParams(String project, Boolean all, Integer limit, String cursor) {
      this(project, all, limit, cursor, null);
    }
  }

  @Schema("#/$defs/SessionListResult/properties/sessions/items")
  public record SessionSummary(String id, String project, String title, boolean titled, String createdAt, String updatedAt,
      int turns, String model, String preview, int v, long bytes, Source source, String sourceLabel, ContinueIn continueIn,
      ForkedFrom forkedFrom, String movedFrom, boolean pinned, boolean archived, String unarchivedAt, Boolean interrupted,
      HeldBy heldBy, String device, View view) {
    public SessionSummary(String id, String project, String title, boolean titled, String createdAt, String updatedAt,
        int turns, String model, String preview, int v, long bytes, Source source, String sourceLabel, ContinueIn continueIn) {
      this(id, project, title, titled, createdAt, updatedAt, turns, model, preview, v, bytes, source, sourceLabel, continueIn,
          null, null, false, false, null, null, null, null, null);
    }
    public SessionSummary(String id, String project, String title, boolean titled, String createdAt, String updatedAt,
        int turns, String model, String preview, int v, long bytes, Source source, String sourceLabel, ContinueIn continueIn,
        ForkedFrom forkedFrom, String movedFrom, boolean pinned, boolean archived, String unarchivedAt, Boolean interrupted,
        HeldBy heldBy) {
      this(id, project, title, titled, createdAt, updatedAt, turns, model, preview, v, bytes, source, sourceLabel, continueIn,
          forkedFrom, movedFrom, pinned, archived, unarchivedAt, interrupted, heldBy, null, null);
    }
    public SessionSummary(String id, String project, String title, boolean titled, String createdAt, String updatedAt,
        int turns, String model, String preview, int v, long bytes, Source source, String sourceLabel, ContinueIn continueIn,
        ForkedFrom forkedFrom, String movedFrom, boolean pinned, boolean archived, String unarchivedAt, Boolean interrupted,
        HeldBy heldBy, String device) {
      this(id, project, title, titled, createdAt, updatedAt, turns, model, preview, v, bytes, source, sourceLabel, continueIn,
          forkedFrom, movedFrom, pinned, archived, unarchivedAt, interrupted, heldBy, device, null);
    }
  }

  /**
   * What a History row shows, computed by the sidecar for every client (protocol.md "The History
   * view"): group key and heading in the user's time zone, the full title, the time label, the
   * source tool, the turns, a short model name, and those joined in one description.
   */
  @Schema("#/$defs/SessionListResult/properties/sessions/items/properties/view")
  public record View(String group, String groupLabel, String title, String time, String source, String turns, String model,
      String description) {}

  /**
   * A fork or copy: the session it was made from and the last of its turns it holds; `device` on a
   * sync conflict's fork (shown as "continued on <device>", protocol.md "Sync conflicts").
   */
  @Schema("#/$defs/SessionListResult/properties/sessions/items/properties/forkedFrom")
  public record ForkedFrom(String id, int turn, String device) {
    public ForkedFrom(String id, int turn) { this(id, turn, null); }
  }

  /** A project's git identity when the session was made (protocol.md "When two folders are one project"). */
  @Schema("#/$defs/SessionReadResult/properties/meta/properties/repo")
  public record Repo(List<String> roots, String prefix, List<String> remotes) {}

  /** How to continue an imported session in its own tool (session/list `continueIn`); null where it cannot. */
  @Schema("#/$defs/SessionListResult/properties/sessions/items/properties/continueIn")
  public record ContinueIn(List<String> argv, String cwd) {}

  @Schema("#/$defs/SessionImportParams")
  public record ImportParams(String tool, String from, Boolean dryRun, JsonElement workDoneToken) {}

  @Schema("#/$defs/SessionImportResult")
  public record ImportResult(int imported, int updated, int unchanged, int skipped, List<ImportProblem> problems,
      List<ImportedSession> sessions, List<ToolCounts> tools, List<SkippedFile> skippedFiles, List<UnknownKind> unknownKinds,
      List<String> unreadable, int failed) {}

  @Schema("#/$defs/SessionImportResult/properties/tools/items")
  public record ToolCounts(String tool, String label, int found, int imported, int updated, int unchanged, int skipped,
      int problems) {}

  @Schema("#/$defs/SessionImportResult/properties/skippedFiles/items")
  public record SkippedFile(String path, String reason) {}

  @Schema("#/$defs/SessionImportResult/properties/unknownKinds/items")
  public record UnknownKind(String tool, String version, String kind, int count) {}

  /** `$/levelcode/importProblem`: a problem of following imports, once per file and problem. */
  @Schema("#/$defs/LevelcodeImportProblemParams")
  public record ImportProblemParams(String tool, String path, String message, Boolean fatal) {}

  @Schema("#/$defs/SessionImportResult/properties/problems/items")
  public record ImportProblem(String path, String message) {}

  @Schema("#/$defs/SessionImportResult/properties/sessions/items")
  public record ImportedSession(String id, Source source) {}

  /** Where an imported session came from (protocol.md, "Imported sessions"); null for our own. */
  @Schema("#/$defs/SessionListResult/properties/sessions/items/properties/source")
  public record Source(String tool, String version, String path, String id, String project, String variant, SourceFork forkedFrom) {}

  /** The fork an imported session's tool records, in the tool's own ids (History resolves it to ours). */
  @Schema("#/$defs/SessionListResult/properties/sessions/items/properties/source/properties/forkedFrom")
  public record SourceFork(String id, Integer turn) {}

  @Schema("#/$defs/SessionListResult/properties/problems/items")
  public record Problem(String file, Integer line, String message) {}

  @Schema("#/$defs/SessionListResult")
  public record ListResult(List<SessionSummary> sessions, String nextCursor, List<Problem> problems) {}

  @Schema("#/$defs/SessionReadParams")
  public record ReadParams(String id, Integer tail, Integer from, Integer to) {}

  @Schema("#/$defs/SessionReadResult/properties/meta")
  public record MetaLine(String kind, int v, String id, String project, String createdAt, String title, String model,
      Source source, ForkedFrom forkedFrom, Repo repo, String device, String importedAt) {}

  @Schema("#/$defs/SessionReadResult/properties/events/items")
  public record SeqEvent(int seq, JsonObject event) {}

  @Schema("#/$defs/SessionReadResult")
  public record ReadResult(MetaLine meta, List<SeqEvent> events, List<Problem> problems, Integer totalEvents, Integer elided) {}

  @Schema("#/$defs/SessionResumeParams")
  public record ResumeParams(String id, int contextWindow, Double budgetRatio, Integer keepTurns, Boolean copy, Boolean confirm,
      Integer consentThreshold, Integer summaryWindow, Map<String, Double> tokenCounts, JsonElement workDoneToken, String target) {
    /** Without a target: the levelcode pair (conversation, agentMessages). */
    public ResumeParams(String id, int contextWindow, Double budgetRatio, Integer keepTurns, Boolean copy, Boolean confirm,
        Integer consentThreshold, Integer summaryWindow, Map<String, Double> tokenCounts, JsonElement workDoneToken) {
      this(id, contextWindow, budgetRatio, keepTurns, copy, confirm, consentThreshold, summaryWindow, tokenCounts, workDoneToken, null);
    }
  }

  @Schema("#/$defs/SessionResumeResult/properties/heldBy")
  public record HeldBy(Integer pid, String host) {}

  @Schema("#/$defs/SessionResumeResult/properties/tokens")
  public record Tokens(int transcript, int budget, int window) {}

  @Schema("#/$defs/SessionResumeResult/properties/needsSummary")
  public record NeedsSummary(List<JsonElement> messages, String instructions, int inputTokens, int coversThrough,
      int maxBriefingTokens, Piece piece, Shortened shortened, String target) {}

  /** Which summarise call of a tier-3 resume this is (index from 0) of how many; the last gives the final briefing. */
  @Schema("#/$defs/SessionResumeResult/properties/needsSummary/properties/piece")
  public record Piece(int index, int count) {
    public boolean last() { return index == count - 1; }
  }

  /** A turn larger than a piece, shortened for the summariser only: tool outputs elided, messages cut. */
  @Schema("#/$defs/SessionResumeResult/properties/needsSummary/properties/shortened")
  public record Shortened(int toolOutputs, int messages) {}

  @Schema("#/$defs/SessionResumeResult/properties/needsConfirmation")
  public record NeedsConfirmation(int inputTokens, int threshold, int calls) {}

  /** The answer of session/resume and of session/compact (the schema has one def for each). */
  @Schema("#/$defs/SessionResumeResult")
  public record ResumeResult(String id, int tier, List<JsonElement> conversation, List<JsonElement> agentMessages, String note,
      boolean readOnly, HeldBy heldBy, String forkedFrom, List<Problem> problems, Tokens tokens, NeedsSummary needsSummary,
      NeedsConfirmation needsConfirmation, String target, List<JsonElement> messages, Map<String, Integer> changes) {}

  @Schema("#/$defs/SessionForkParams")
  public record ForkParams(String id, Integer atTurn, String project) {
    public ForkParams(String id) {
      this(id, null, null);
    }
  }

  @Schema("#/$defs/SessionForkResult")
  public record ForkResult(String id, String project, String createdAt, String forkedFrom, int turn, int copied) {}

  /** session/handoff: continue a session in an agent CLI (a new session of that tool). */
  @Schema("#/$defs/SessionHandoffParams")
  public record HandoffParams(String id, String to, Boolean dryRun) {}

  @Schema("#/$defs/SessionHandoffResult")
  public record HandoffResult(String tool, String installed, String id, String path, List<String> argv, String cwd, String command,
      int messages, int tier, String note, boolean dryRun) {}

  @Schema("#/$defs/SessionCompactParams")
  public record CompactParams(String id, String briefing, int coversThrough) {}

  public enum ExportFormat {
    @SerializedName("markdown") MARKDOWN,
    @SerializedName("json") JSON
  }

  @Schema("#/$defs/SessionExportParams")
  public record ExportParams(String id, ExportFormat format, Boolean thinking, Boolean tools, Integer maxToolChars,
      String timeZone, JsonElement workDoneToken) {
    public ExportParams(String id, ExportFormat format, Boolean thinking, Boolean tools, Integer maxToolChars,
        JsonElement workDoneToken) {
      this(id, format, thinking, tools, maxToolChars, null, workDoneToken);
    }
  }

  @Schema("#/$defs/SessionExportResult")
  public record ExportResult(String content, ExportFormat format, String mimeType) {}

  @Schema("#/$defs/SessionSearchParams")
  public record SearchParams(String query, String project, Boolean all, String since, String until, Integer limit,
      Integer perSession, String cursor, JsonElement workDoneToken) {}

  @Schema("#/$defs/SessionSearchResult/properties/hits/items")
  public record SearchHit(String sessionId, String project, String title, int seq, String cite, String kind, String where,
      String t, String snippet, List<List<Integer>> ranges, String file) {}

  @Schema("#/$defs/SessionSearchResult/properties/sessions/items")
  public record SearchSession(String sessionId, String project, String title, String tool, String t, double score, String file,
      List<SearchHit> hits) {}

  @Schema("#/$defs/SessionSearchResult")
  public record SearchResult(List<SearchSession> sessions, List<SearchHit> hits, int total, int files, String cursor, boolean ranked,
      List<Problem> problems) {}

  @Schema("#/$defs/SessionRenameParams")
  public record RenameParams(String id, String title) {}

  @Schema("#/$defs/SessionRenameResult")
  public record RenameResult(String id, String title) {}

  /** Params of session/delete and session/seal (both `{ id }`). */
  @Schema("#/$defs/SessionDeleteParams")
  public record IdParams(String id) {}

  @Schema("#/$defs/SessionDeleteResult")
  public record IdResult(String id) {}

  public enum TitleSource {
    @SerializedName("existing") EXISTING,
    @SerializedName("model") MODEL,
    @SerializedName("fallback") FALLBACK,
    @SerializedName("none") NONE
  }

  @Schema("#/$defs/SessionSealResult")
  public record SealResult(String id, String title, TitleSource titleSource) {}

  @Schema("#/$defs/SessionReleaseResult")
  public record ReleaseResult(String id, boolean released) {}

  @Schema("#/$defs/SessionRestoreResult")
  public record RestoreResult(String id, String project, String path, String trashed) {}

  @Schema("#/$defs/SessionRelinkParams")
  public record RelinkParams(String from, String to, Boolean dryRun) {}

  @Schema("#/$defs/SessionRelinkResult/properties/sessions/items")
  public record RelinkedSession(String id, String title, String project) {}

  @Schema("#/$defs/SessionRelinkResult")
  public record RelinkResult(String from, String to, boolean dryRun, List<RelinkedSession> sessions) {}

  @Schema("#/$defs/SessionPinParams")
  public record PinParams(String id, boolean pinned) {}

  @Schema("#/$defs/SessionPinResult")
  public record PinResult(String id, boolean pinned, boolean changed) {}

  @Schema("#/$defs/SessionArchiveParams")
  public record ArchiveParams(String id, boolean archived) {}

  @Schema("#/$defs/SessionArchiveResult")
  public record ArchiveResult(String id, boolean archived, boolean changed) {}

  @Schema("#/$defs/SessionRetentionParams")
  public record RetentionParams(String project, Boolean dryRun, Boolean delete, Integer autoArchiveDays, Integer keep,
      Integer maxAgeDays) {}

  public enum RetentionAction {
    @SerializedName("archive") ARCHIVE,
    @SerializedName("delete") DELETE
  }

  public enum RetentionReason {
    @SerializedName("idle") IDLE,
    @SerializedName("max-age") MAX_AGE,
    @SerializedName("keep") KEEP
  }

  @Schema("#/$defs/SessionRetentionResult/properties/done/items")
  public record RetentionItem(String id, String project, String title, RetentionAction action, RetentionReason reason,
      String lastActive, String skipped) {}

  /** The rules a retention run applied; null: that rule off. */
  @Schema("#/$defs/SessionRetentionResult/properties/settings")
  public record RetentionSettings(Double idleDays, Double keep, Double maxAgeDays, boolean delete) {}

  @Schema("#/$defs/SessionRetentionResult")
  public record RetentionResult(boolean dryRun, RetentionSettings settings, List<RetentionItem> done, List<RetentionItem> skipped) {}

  @Schema("#/$defs/SessionReindexParams")
  public record ReindexParams(String project, JsonElement workDoneToken) {}

  @Schema("#/$defs/SessionReindexResult")
  public record ReindexResult(int projects, int sessions, int written, List<Problem> problems) {}

  // ---- server to client ----

  @Schema("#/$defs/SessionTitleParams/properties/messages/items")
  public record TitleMessage(String role, String text) {}

  @Schema("#/$defs/SessionTitleParams")
  public record TitleParams(String id, List<TitleMessage> messages, String instructions, int maxTokens) {}

  @Schema("#/$defs/SessionTitleResult")
  public record TitleResult(String title) {}

  @Schema("#/$defs/SessionSummarizeParams")
  public record SummarizeParams(String id, List<JsonElement> messages, String instructions, Piece piece, Integer coversThrough,
      Integer inputTokens, Integer maxBriefingTokens, Shortened shortened, String target) {
    public SummarizeParams(String id, List<JsonElement> messages, String instructions, Piece piece, Integer coversThrough,
        Integer inputTokens, Integer maxBriefingTokens, Shortened shortened) {
      this(id, messages, instructions, piece, coversThrough, inputTokens, maxBriefingTokens, shortened, null);
    }
  }

  @Schema("#/$defs/SessionSummarizeResult")
  public record SummarizeResult(String briefing) {}

  public enum Change {
    @SerializedName("created") CREATED,
    @SerializedName("appended") APPENDED,
    @SerializedName("renamed") RENAMED,
    @SerializedName("deleted") DELETED,
    @SerializedName("listed") LISTED
  }

  @Schema("#/$defs/SessionDidChangeParams")
  public record DidChangeParams(String id, String project, Change change) {}
}
