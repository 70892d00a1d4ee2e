// "Import Chats from Other AI Tools…" (the History toolbar and its empty state): a dry run of
// session/import finds the tools on this machine and their chats; the user picks one tool or all
// of them from a list that shows the counts; the import runs under the IDE's progress indicator
// (its Cancel sends $/cancelRequest: what was imported stays); a balloon reports per tool. The
// History refreshes by itself (session/didChange). No Swing here: the Ui answers.
package dev.levelcode.sessions.core;

import dev.levelcode.sessions.core.rpc.Protocol;
import dev.levelcode.sessions.core.rpc.RpcException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

public final class Importer {
  private final Sidecar sidecar;
  private final Ui ui;

  public Importer(Sidecar sidecar, Ui ui) {
    this.sidecar = sidecar;
    this.ui = ui;
  }

  /** What the user picked: a tool's importer name, or "all". */
  public record Choice(String tool, String label) {}

  /** The list the user picks from, from a dry run's counts: "All of them" first when there are several. */
  public static List<Choice> choices(Protocol.ImportResult dry, List<String> itemsOut) {
    List<Choice> out = new ArrayList<>();
    List<Protocol.ToolCounts> found = dry.tools() == null ? List.of()
        : dry.tools().stream().filter(t -> t.found() > 0).toList();
    if (found.size() > 1) {
      int fresh = found.stream().mapToInt(t -> t.imported() + t.updated()).sum();
      out.add(new Choice("all", Strings.Import.ALL));
      itemsOut.add(Strings.Import.allItem(fresh));
    }
    for (Protocol.ToolCounts t : found) {
      String label = labelOf(t);
      out.add(new Choice(t.tool(), label));
      itemsOut.add(Strings.Import.toolItem(label, t.found(), t.imported() + t.updated()));
    }
    return out;
  }

  /** The tool's name as people know it: the sidecar's label, else its id. */
  static String labelOf(Protocol.ToolCounts t) {
    return t.label() != null && !t.label().isBlank() ? t.label() : t.tool();
  }

  /** The balloon at the end: the totals, then a line per tool that had files. */
  public static String summary(Protocol.ImportResult r) {
    List<String> lines = new ArrayList<>();
    lines.add(Strings.Import.done(r.imported(), r.updated()));
    if (r.tools() != null) {
      for (Protocol.ToolCounts t : r.tools()) {
        if (t.found() > 0 || t.problems() > 0)
          lines.add(Strings.Import.toolLine(labelOf(t), t.imported(), t.updated(), t.unchanged(), t.problems()));
      }
    }
    if (r.unreadable() != null) for (String f : r.unreadable()) lines.add(Strings.Import.unreadable(f));
    if (r.failed() > 0) lines.add(Strings.Import.failed(r.failed()));
    return String.join("\n", lines);
  }

  /** Asks which tool, imports it, reports. Completes with the import's result, or null when nothing was imported. */
  public CompletableFuture<Protocol.ImportResult> run() {
    CompletableFuture<Protocol.ImportResult> dry = ui.withProgress(Strings.Import.LOOKING,
        sidecar.request(Protocol.IMPORT, new Protocol.ImportParams(null, null, true, null), Sidecar.LONG_TIMEOUT));
    return dry.thenCompose(d -> {
      List<String> items = new ArrayList<>();
      List<Choice> choices = choices(d, items);
      if (choices.isEmpty()) {
        ui.notify(Ui.Kind.INFO, Strings.Import.NOTHING_FOUND, List.of());
        return CompletableFuture.completedFuture(null);
      }
      return ui.choose(Strings.Import.CHOOSE, items).thenCompose(i -> i == null ? CompletableFuture.completedFuture(null) : run(choices.get(i)));
    }).exceptionally(e -> failed(e, null));
  }

  /** Imports one tool (or "all") under the progress indicator and reports per tool. */
  public CompletableFuture<Protocol.ImportResult> run(Choice c) {
    WorkProgress work = sidecar.workProgress();
    CompletableFuture<Protocol.ImportResult> task =
        sidecar.request(Protocol.IMPORT, new Protocol.ImportParams(c.tool(), null, null, work.token()), Sidecar.LONG_TIMEOUT);
    task.whenComplete((r, e) -> sidecar.forget(work));
    return ui.withProgress(Strings.Import.progress(c.label()), work, task).thenApply(r -> {
      boolean bad = (r.unreadable() != null && !r.unreadable().isEmpty()) || r.failed() > 0;
      ui.notify(bad ? Ui.Kind.WARNING : Ui.Kind.INFO, summary(r), List.of());
      return r;
    }).exceptionally(e -> failed(e, c));
  }

  private Protocol.ImportResult failed(Throwable e, Choice c) {
    Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    RpcException rpc = RpcException.unwrap(e);
    if (cause instanceof CancellationException || (rpc != null && rpc.code() == -32800)) {
      ui.notify(Ui.Kind.INFO, Strings.Import.CANCELLED, List.of());
    } else {
      ui.notify(Ui.Kind.ERROR, Strings.Import.failedAll(c == null ? null : c.label(), rpc != null ? rpc.getMessage() : String.valueOf(cause.getMessage())), List.of());
    }
    return null;
  }
}
