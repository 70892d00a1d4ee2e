// Every user-visible string of the core (and of the plugin's dialogs), in one place, with the
// same words as the VS Code client (clients/vscode/src/strings.ts). Plain data and small
// formatting functions.
package dev.levelcode.sessions.core;

import java.text.NumberFormat;
import java.util.List;
import java.util.Locale;

public final class Strings {
  private Strings() {}

  static String plural(long n, String one, String many) {
    return n + " " + (n == 1 ? one : many);
  }

  public static final class Time {
    private Time() {}
    public static final String JUST_NOW = "just now";
    public static final String YESTERDAY = "yesterday";
    public static final String UNKNOWN = "unknown time";
    public static final List<String> MONTHS = List.of("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec");
    public static String minutesAgo(long n) { return n + " min ago"; }
    public static String hoursAgo(long n) { return n + " h ago"; }
    public static String daysAgo(long n) { return n + " days ago"; }
  }

  public static final class History {
    private History() {}
    public static final String TOOL_WINDOW = "LevelCode History";
    public static final String UNTITLED = "Untitled chat";
    public static final String SEPARATOR = " · ";
    public static final String SEARCH_PLACEHOLDER = "Search every message of every chat";
    public static final String EMPTY = "No chats in History yet.";
    /** The empty History's second line, above its Import link. */
    public static final String EMPTY_IMPORT = "Chats from Claude Code, Codex, Gemini CLI and other AI tools can be brought in:";
    public static final String SEARCHING = "Searching…";
    public static final String RESULTS = "Best matches";
    public static String results(int n) { return plural(n, "chat matches", "chats match"); }
    public static String searchFailed(String why) { return "Search failed: " + why; }
    public static final String NO_MATCH = "No chat matches the search.";
    public static final String LOADING = "Loading History…";
    public static final String SIDECAR_DOWN = "The History service is not running.";
    public static String turns(long n) { return plural(n, "turn", "turns"); }
    public static String updated(String s) { return "Last used " + s; }
    public static String created(String s) { return "Started " + s; }
    public static String sessionId(String id) { return "Session " + id; }
    public static String device(String name) { return "Device " + name; }
    public static String imported(String tool, String version, String id) {
      return "Imported from " + tool + (version == null || version.isBlank() ? "" : " " + version) + " (its session " + id + ")";
    }
    public static String importedFile(String path) { return "Source file " + path; }
    public static String problems(int n) { return plural(n, "file could not be read (see the log)", "files could not be read (see the log)"); }
    public static String count(int n) { return plural(n, "chat", "chats"); }
    public static String archivedCount(int n) { return plural(n, "archived chat", "archived chats"); }
    public static final String ARCHIVED_EMPTY = "No archived chats.";
  }

  /** A row's state, in its grey line (short) and its tooltip (a sentence). */
  public static final class State {
    private State() {}
    public static final String PINNED = "pinned";
    public static final String ARCHIVED = "archived";
    public static final String HELD = "open in another window";
    public static final String INTERRUPTED = "interrupted";
    public static final String PINNED_TIP = "Pinned: listed first";
    public static final String ARCHIVED_TIP = "Archived: out of the main History (Show Archived lists it; Unarchive brings it back)";
    public static final String INTERRUPTED_TIP = "Interrupted: its last run stopped part way; Resume goes on from there";
    public static String forkedFrom(String title, int turn) {
      return title == null ? "forked at turn " + turn + " of another chat" : "forked from “" + title + "” turn " + turn;
    }
    public static String forkedFromTip(String title, String id, int turn) {
      return "Forked from " + (title == null ? "chat " + id : "“" + title + "”") + " at turn " + turn;
    }
    public static String continuedOn(String device, int turn) { return "continued on " + device + " after turn " + turn; }
    public static String continuedOnTip(String device, String title, String id, int turn) {
      return "Continued on " + device + ": " + (title == null ? "chat " + id : "“" + title + "”") + " went on there from turn " + turn
          + " while the devices were apart (a sync conflict, kept whole)";
    }
    public static String movedFrom(String path) { return "moved from " + path; }
    public static String movedFromTip(String path) { return "Moved from " + path + " (the folder it was recorded in; one project with this one)"; }
    public static String heldTip(Integer pid, String host) {
      String who = pid == null && host == null ? "" : " (" + (pid == null ? "" : "pid " + pid) + (pid != null && host != null ? " on " : "")
          + (host == null ? "" : host) + ")";
      return "Open in another window" + who + ": resuming it here opens it read-only";
    }
  }

  public static final class Import {
    private Import() {}
    public static final String ACTION = "Import Chats from Other AI Tools…";
    public static final String LOOKING = "Looking for chats of other AI tools…";
    public static final String CHOOSE = "Import chats from";
    public static final String ALL = "all tools";
    public static final String NOTHING_FOUND = "Found no chats of other AI tools on this machine (Claude Code, Codex, Gemini CLI, Cursor, opencode, …).";
    public static final String CANCELLED = "Import cancelled; what was imported before stays in History.";
    public static String allItem(int fresh) { return "All of them · " + plural(fresh, "chat", "chats") + " new or updated"; }
    public static String toolItem(String label, int found, int fresh) {
      return label + " · " + plural(found, "file", "files") + " found · " + fresh + " new or updated";
    }
    public static String progress(String label) { return "Importing " + label + "…"; }
    public static String done(int imported, int updated) { return "Imported " + plural(imported, "chat", "chats") + ", updated " + updated + "."; }
    public static String toolLine(String label, int imported, int updated, int unchanged, int problems) {
      List<String> parts = new java.util.ArrayList<>();
      if (imported > 0) parts.add(plural(imported, "new chat", "new chats"));
      if (updated > 0) parts.add(updated + " updated");
      if (unchanged > 0) parts.add(unchanged + " already in History");
      if (problems > 0) parts.add(plural(problems, "problem", "problems"));
      if (parts.isEmpty()) parts.add("nothing to import");
      return label + ": " + String.join(", ", parts);
    }
    public static String unreadable(String path) { return "Could not read " + path; }
    public static String failed(int n) { return plural(n, "chat", "chats") + " could not be written to the store"; }
    public static String failedAll(String label, String why) { return "Could not import " + (label == null ? "chats" : label) + ": " + why; }
  }

  public static final class Actions {
    private Actions() {}
    public static final String NEW_CHAT = "New Chat";
    public static final String HISTORY = "Chat History";
    public static final String RESUME_LAST = "Resume Last Chat";
    public static final String RESUME = "Resume";
    public static final String OPEN_TRANSCRIPT = "Open Transcript";
    public static final String RENAME = "Rename…";
    public static final String DELETE = "Delete";
    public static final String COPY = "Copy as Markdown";
    public static final String EXPORT = "Export Chat as Markdown…";
    public static final String REFRESH = "Refresh";
    public static final String SHOW_ALL = "Show All Projects";
    public static final String SHOW_ARCHIVED = "Show Archived";
    public static final String PIN = "Pin";
    public static final String UNPIN = "Unpin";
    public static final String ARCHIVE = "Archive";
    public static final String UNARCHIVE = "Unarchive";
    public static final String FORK = "Fork from Turn…";
    public static final String RETENTION = "Apply Retention…";
    public static final String RELINK = "Relink Chats from Another Folder…";
    public static final String MORE = "More";
  }

  public static final class Rename {
    private Rename() {}
    public static final String PROMPT = "New title for this chat";
    public static final String EMPTY = "A title cannot be empty.";
    public static final String TOO_LONG = "A title can have at most 500 characters.";
    public static String done(String t) { return "Renamed to “" + t + "”."; }
  }

  public static final class Delete {
    private Delete() {}
    public static String trashed(String t) { return "“" + t + "” was moved to the trash."; }
    public static String restored(String t) { return "“" + t + "” was restored."; }
    public static String restoreFailed(String t, String why) { return "Could not restore “" + t + "”: " + why; }
    public static final String UNDO = "Undo";
    public static String done(String t) { return "“" + t + "” will be moved to the trash."; }
    public static String undone(String t) { return "“" + t + "” was kept."; }
    public static String tooLate(String t) { return "“" + t + "” is already in the trash; restore it from the system trash."; }
    public static String failed(String t, String why) { return "Could not delete “" + t + "”: " + why; }
  }

  public static final class Lifecycle {
    private Lifecycle() {}
    public static final String UNDO = "Undo";
    public static String pinned(String t) { return "Pinned “" + t + "”."; }
    public static String unpinned(String t) { return "Unpinned “" + t + "”."; }
    public static String archived(String t) { return "Archived “" + t + "”: out of History, listed under Show Archived."; }
    public static String unarchived(String t) { return "“" + t + "” is back in History."; }
    public static String failed(String t, String why) { return "Could not change “" + t + "”: " + why; }
  }

  public static final class Retention {
    private Retention() {}
    public static final String TITLE = "Apply Retention";
    public static final String ARCHIVE = "Archive";
    public static final String TRASH = "Move to Trash…";
    public static final String CANCEL = "Cancel";
    public static final String NO_RULES = "Every rule is off (Settings | Tools | LevelCode Sessions): nothing falls out of History.";
    /** The rules in force, for the dialog's text. */
    public static String rules(int idle, int keep, int maxAge) {
      List<String> r = new java.util.ArrayList<>();
      if (idle > 0) r.add("archive chats idle more than " + plural(idle, "day", "days"));
      if (keep > 0) r.add("keep the newest " + keep + " per project");
      if (maxAge > 0) r.add("nothing older than " + plural(maxAge, "day", "days"));
      return "Rules: " + String.join("; ", r) + " (pinned chats never fall out).";
    }
    public static String intro(int n, String rules) {
      return rules + " " + (n == 1 ? "This chat falls" : "These " + n + " chats fall") + " out of History. Archive keeps "
          + (n == 1 ? "it" : "them") + " (Show Archived lists " + (n == 1 ? "it" : "them") + "); Move to Trash deletes.";
    }
    public static String nothing(String rules) { return "Nothing falls out of History. " + rules; }
    public static String reason(String reason, int idle, int keep, int maxAge) {
      return switch (reason) {
        case "idle" -> "idle more than " + plural(idle, "day", "days");
        case "max-age" -> "older than " + plural(maxAge, "day", "days");
        case "keep" -> "beyond the newest " + keep;
        default -> reason;
      };
    }
    public static String item(String title, String why, String lastActive) { return "“" + title + "”: " + why + " (last active " + lastActive + ")"; }
    public static String skipped(String title, String why) { return "“" + title + "”: left alone, " + why; }
    public static String confirmTrash(int n, List<String> titles, int archivedToo) {
      int shown = Math.min(titles.size(), 8);
      String names = String.join(", ", titles.subList(0, shown).stream().map(t -> "“" + t + "”").toList())
          + (titles.size() > shown ? " and " + (titles.size() - shown) + " more" : "");
      return "Move " + plural(n, "chat", "chats") + " to the trash? " + names + "."
          + (archivedToo > 0 ? " " + plural(archivedToo, "idle chat is", "idle chats are") + " archived instead." : "")
          + " The system trash keeps " + (n == 1 ? "it" : "them") + " until it is emptied.";
    }
    public static String trashNow(int n) { return "Move " + plural(n, "Chat", "Chats") + " to Trash"; }
    public static String archivedN(int n) { return "Archived " + plural(n, "chat", "chats") + ": out of History, listed under Show Archived."; }
    public static String trashedN(int n, int archived) {
      return "Moved " + plural(n, "chat", "chats") + " to the trash" + (archived > 0 ? " and archived " + archived : "") + ".";
    }
    public static String undone(int n) { return plural(n, "chat is", "chats are") + " back in History."; }
    public static String leftAlone(int n) { return " " + plural(n, "chat was", "chats were") + " left alone (see the log)."; }
    public static String failed(String why) { return "Could not apply retention: " + why; }
  }

  public static final class Fork {
    private Fork() {}
    public static final String UNSUPPORTED = "this LevelCode Sessions service cannot fork at a turn (update it)";
    public static String choose(String t) { return "Fork “" + t + "” from turn"; }
    public static String turn(int n, String firstLine) { return "Turn " + n + Strings.History.SEPARATOR + firstLine; }
    public static String noTurns(String t) { return "“" + t + "” has no turns to fork from yet."; }
    public static String failed(String why) { return "Could not fork: " + why; }
    public static String title(String t, int turn) { return t + " (fork at turn " + turn + ")"; }
  }

  public static final class Relink {
    private Relink() {}
    public static final String CHOOSE = "Relink chats to this project from";
    public static final String OTHER = "Another folder…";
    public static final String PROMPT = "The folder the chats were recorded in (it may no longer exist)";
    public static final String CANCEL = "Cancel";
    public static final String NO_PROJECT = "Open a project first: chats are relinked to its folder.";
    public static final String EMPTY_PATH = "Enter a folder's path.";
    public static String candidate(String path, int n, boolean gone) {
      return path + Strings.History.SEPARATOR + plural(n, "chat", "chats") + (gone ? Strings.History.SEPARATOR + "folder gone" : "");
    }
    public static String none(String from) { return "No chats are recorded under " + from + "."; }
    public static String confirm(int n, String from, String to) {
      return "Move " + plural(n, "chat", "chats") + " recorded under " + from + " to this project (" + to
          + ")? They are listed here “moved from …”; their files move within the store, unchanged.";
    }
    public static String relinkNow(int n) { return "Relink " + plural(n, "Chat", "Chats"); }
    public static String done(int n, String from) { return "Relinked " + plural(n, "chat", "chats") + " from " + from + "."; }
    public static String failed(String why) { return "Could not relink: " + why; }
  }

  public static final class Export {
    private Export() {}
    public static String copied(String t) { return "Copied “" + t + "” as Markdown."; }
    public static String done(String path) { return "Exported to " + path + "."; }
    public static String failed(String why) { return "Could not export: " + why; }
  }

  public static final class NewChat {
    private NewChat() {}
    public static final String SAVED_ONCE = "Previous chat saved to History.";
    public static final String OPEN_HISTORY = "Show History";
  }

  public static final class Resume {
    private Resume() {}
    public static final String OPEN_COPY = "Open a Copy";
    public static final String FROM_SUMMARY = "Resume from summary";
    public static final String START_FRESH = "Start fresh instead";
    /** No model to write a summary: what that means and what to do (an AI assistant plugin lends one through LevelCodeSessionsApi.setModel). */
    public static final String NO_MODEL = "Resuming this chat needs a summary written by a language model, and no AI assistant plugin has lent one to LevelCode Sessions."
        + " Install or enable an AI assistant plugin that works with LevelCode Sessions, or start fresh: the whole chat stays in History (Open Transcript).";
    public static final String NOTHING = "There is no chat to resume in this folder yet.";
    public static String progress(String t) { return "Resuming “" + t + "”…"; }
    /** How a resume rebuilt the chat, in the user's words (the sidecar's tier 1, 2, 3 never shows). */
    public static String how(int tier) {
      return tier == 1 ? "the whole chat" : tier == 2 ? "from a summary and the recent turns" : "from a new summary and the recent turns";
    }
    public static String resumed(String t, int tier, String note) {
      return "Resumed “" + t + "”: " + how(tier) + "." + (note == null ? "" : " " + note);
    }
    public static String readOnly(String t) { return "“" + t + "” is open in another window; it is shown read-only."; }
    /** The consent question: the whole cost, over every summarise call (`calls`: the pieces). */
    public static String consent(long tokens, int calls) {
      return "Resuming this chat needs a summary of about " + NumberFormat.getIntegerInstance(Locale.US).format(tokens)
          + " tokens of earlier conversation by the language model, in " + plural(calls, "request", "requests") + ". Continue?";
    }
    /** The two-step flow's progress while one piece of many is summarised. */
    public static String summarising(String t, int index, int count) {
      return count > 1 ? "Resuming “" + t + "”: summarising part " + (index + 1) + " of " + count + " of the earlier chat…" : progress(t);
    }
    public static String failed(String why) { return "Could not resume: " + why; }
    /** A piece failed after `done` pieces were recorded: they stay, and the next resume goes on from them. */
    public static String keptPieces(String why, int done) {
      return why + " (" + plural(done, "part", "parts") + " summarised before " + (done == 1 ? "is" : "are")
          + " kept; resuming again goes on from there)";
    }
  }

  /** One writer per chat across windows: a chat another window continued meanwhile. */
  public static final class Elsewhere {
    private Elsewhere() {}
    public static String continuing(String t) {
      return "This chat is continuing in another window: “" + t + "” moved on there, so your last message was not added to it. Open a copy to go on here.";
    }
    public static String inCopy(String t) { return "Continuing in a copy of “" + t + "”; the original goes on in the other window."; }
    public static String failed(String why) { return "Could not open a copy: " + why; }
  }

  public static final class Transcript {
    private Transcript() {}
    public static String failed(String why) { return "Could not load the transcript: " + why; }
  }

  public static final class Sidecar {
    private Sidecar() {}
    public static final String RESTARTING = "The LevelCode Sessions service stopped unexpectedly and was restarted.";
    public static final String GAVE_UP = "The LevelCode Sessions service keeps stopping; History is unavailable. See the log for the reason.";
    public static final String DOWN = "The History service is not running.";
    public static final String NOT_ON_PATH = "The LevelCode Sessions sidecar was not found: set its path in Settings | Tools | LevelCode Sessions, or put levelcode-sessions on PATH.";
    public static String notFound(String path) { return "The sidecar set in Settings | Tools | LevelCode Sessions was not found: " + path; }
    public static String startFailed(String why) { return "Could not start the LevelCode Sessions service: " + why; }
    public static String wrongVersion(int v, int want) { return "The LevelCode Sessions service speaks protocol " + v + "; this plugin needs " + want + "."; }
  }

  public static final class Model {
    private Model() {}
    public static final String NONE = "no language model is available";
    public static final String EMPTY = "the language model gave an empty answer";
  }

  public static final class Errors {
    private Errors() {}
    public static final String NO_PROJECT = "Open a project first: chats are kept per project folder.";
    public static final String UNKNOWN_SESSION = "the chat is no longer in History";
    public static final String LOCKED = "another window is using this chat";
  }
}
