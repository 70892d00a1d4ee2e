package dev.levelcode.sessions.core;

import dev.levelcode.sessions.core.rpc.Protocol;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * "Continue in an agent CLI": any saved session handed off to an agent CLI (Claude Code, Codex:
 * the tools the sidecar's capability lists with `handoff`). The sidecar writes a new session of
 * that tool (session/handoff) and answers the command that resumes it; the IDE adapter runs that
 * command in its terminal. Plain Java: the tools found on PATH, the one line said when there is
 * none, and the request, tested by JUnit against the real sidecar.
 */
public final class Handoff {
  private Handoff() {}

  /** An agent CLI: the sidecar's name for it, its label, its command, how to install it. */
  public record Tool(String to, String label, String bin, String install) {}

  /** The tools a session can be handed off to, as the sidecar's capability lists them (none without one). */
  public static List<Tool> tools(Protocol.ServerCapability cap) {
    List<Tool> out = new ArrayList<>();
    if (cap == null || cap.tools() == null) return out;
    for (Protocol.ToolInfo t : cap.tools())
      if (t.handoff() != null) out.add(new Tool(t.id(), t.label(), t.handoff().bin(), t.handoff().install()));
    return out;
  }

  /**
   * What runs in the terminal: the tool's resume as argv in the project folder, and as one POSIX
   * shell line (`cd CWD && ARGV`, quoted) for a terminal that takes a line.
   */
  public record Command(List<String> argv, String cwd, String shellLine, String title, String note) {}

  /** The tools whose command is an executable file in a folder of `path` (a PATH value), in order. */
  public static List<Tool> onPath(List<Tool> tools, String path) {
    List<Tool> out = new ArrayList<>();
    if (path == null) return out;
    for (Tool t : tools) {
      for (String dir : path.split(File.pathSeparator)) {
        if (dir.isEmpty()) continue;
        Path p = Path.of(dir, t.bin());
        if (Files.isRegularFile(p) && Files.isExecutable(p)) {
          out.add(t);
          break;
        }
      }
    }
    return out;
  }

  /** The one line shown when no agent CLI is on PATH: "install Claude Code (npm …) or Codex (npm …)". */
  public static String noneOnPath(List<Tool> tools) {
    List<String> each = tools.stream().map(t -> t.label() + " (" + t.install() + ")").toList();
    if (each.isEmpty()) return "No agent CLI to continue in: this sidecar hands off to none.";
    String last = each.get(each.size() - 1);
    String list = each.size() == 1 ? last : String.join(", ", each.subList(0, each.size() - 1)) + " or " + last;
    return "No agent CLI on PATH to continue in: install " + list + ".";
  }

  /**
   * The action: the CLIs on `path`; none: one line says what to install; several: the user picks;
   * then the new session is written and `terminal` runs its command (the adapter's IDE terminal).
   * Answers the command run, or null when nothing was (none on PATH, dismissed, or an error said).
   */
  public static CompletableFuture<Command> continueIn(Sidecar sidecar, Ui ui, String id, String title, String path, Consumer<Command> terminal) {
    return sidecar.start().thenCompose(cap -> continueIn(sidecar, tools(cap), ui, id, title, path, terminal));
  }

  private static CompletableFuture<Command> continueIn(Sidecar sidecar, List<Tool> tools, Ui ui, String id, String title, String path,
      Consumer<Command> terminal) {
    List<Tool> found = onPath(tools, path);
    if (found.isEmpty()) {
      ui.notify(Ui.Kind.INFO, noneOnPath(tools), List.of());
      return CompletableFuture.completedFuture(null);
    }
    CompletableFuture<Integer> pick = found.size() == 1 ? CompletableFuture.completedFuture(0)
        : ui.choose("Continue “" + title + "” in", found.stream().map(Tool::label).toList());
    return pick.thenCompose(i -> {
      if (i == null) return CompletableFuture.completedFuture(null);
      Tool tool = found.get(i);
      return start(sidecar, id, title, tool).handle((c, e) -> {
        if (e != null) {
          Throwable cause = e.getCause() != null ? e.getCause() : e;
          ui.notify(Ui.Kind.ERROR, "Could not continue in " + tool.label() + ": " + cause.getMessage(), List.of());
          return null;
        }
        if (c.note() != null && !c.note().isEmpty()) ui.notify(Ui.Kind.INFO, tool.label() + ": " + c.note(), List.of());
        terminal.accept(c);
        return c;
      });
    });
  }

  /** Has the sidecar write the new session of `tool` and answers the command that resumes it. */
  public static CompletableFuture<Command> start(Sidecar sidecar, String id, String title, Tool tool) {
    return sidecar.request(Protocol.HANDOFF, new Protocol.HandoffParams(id, tool.to(), null))
        .thenApply(r -> new Command(r.argv(), r.cwd(), r.command(), tool.label() + ": " + title, r.note()));
  }
}
