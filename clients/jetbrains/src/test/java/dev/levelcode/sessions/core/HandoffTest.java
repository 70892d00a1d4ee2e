package dev.levelcode.sessions.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonParser;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The hand-off through the core against the real sidecar: the CLIs found, the request, the command. */
class HandoffTest {
  Fixture fx;

  @BeforeEach void setUp() throws Exception { fx = new Fixture(); }
  @AfterEach void tearDown() throws Exception { fx.close(); }

  private Path tool(Path dir, String name, String version) throws Exception {
    Files.createDirectories(dir);
    Path p = dir.resolve(name);
    Files.writeString(p, "#!/bin/sh\necho \"" + version + "\"\n");
    Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
    return p;
  }

  @Test
  void findsTheCliOnPathAndSaysWhatToInstallWithout() throws Exception {
    Path bin = fx.root.resolve("bin");
    tool(bin, "codex", "codex-cli 0.171.0");
    Files.writeString(bin.resolve("claude"), "not executable");
    List<Handoff.Tool> tools = Handoff.tools(fx.sidecar(o -> o).capability());
    assertEquals(List.of("claude-code", "codex"), tools.stream().map(Handoff.Tool::to).toList());
    assertEquals(List.of("codex"), Handoff.onPath(tools, "/nonexistent:" + bin).stream().map(Handoff.Tool::to).toList());
    assertEquals(List.of(), Handoff.onPath(tools, "/nonexistent"));
    assertEquals("No agent CLI on PATH to continue in: install Claude Code (npm install -g @anthropic-ai/claude-code) or Codex "
        + "(npm install -g @openai/codex).", Handoff.noneOnPath(tools));
  }

  @Test
  void writesANewClaudeCodeSessionAndAnswersItsResumeCommand() throws Exception {
    String id = fx.newSession(null);
    fx.append(id,
        Fixture.user("2026-07-28T09:12:33.000Z", "List the files"),
        "{\"kind\":\"agent\",\"messages\":[{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"toolu_jb1\",\"name\":\"Bash\",\"input\":{\"command\":\"ls\"}}]}]}",
        "{\"kind\":\"agent\",\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_jb1\",\"content\":\"a.txt\"}]}]}",
        Fixture.assistant("2026-07-28T09:12:40.000Z", "One file"));
    Path bin = fx.root.resolve("bin");
    tool(bin, "claude", "2.1.332 (Claude Code)");
    Path claudeHome = fx.root.resolve("claude-home");
    Sidecar s = fx.sidecar(o -> o.withEnv(Map.of("XDG_DATA_HOME", fx.data().toString(), "CLAUDE_CONFIG_DIR", claudeHome.toString(),
        "PATH", bin + ":" + System.getenv("PATH"))));
    Handoff.Command c = Fixture.get(Handoff.start(s, id, "List the files", Handoff.tools(s.capability()).get(0)));
    assertEquals("claude", c.argv().get(0));
    assertEquals("--resume", c.argv().get(1));
    assertEquals(fx.project.toString(), c.cwd());
    assertEquals("Claude Code: List the files", c.title());
    Path file = claudeHome.resolve("projects").resolve(fx.project.toString().replaceAll("[^a-zA-Z0-9]", "-")).resolve(c.argv().get(2) + ".jsonl");
    List<String> lines = Files.readAllLines(file);
    assertEquals(4, lines.size());
    assertEquals("tool_use", JsonParser.parseString(lines.get(1)).getAsJsonObject().getAsJsonObject("message").getAsJsonArray("content").get(0)
        .getAsJsonObject().get("type").getAsString());
  }

  @Test
  void theActionAsksWhichCliRunsItsCommandOrSaysWhatToInstall() throws Exception {
    String id = fx.newSession(null);
    fx.append(id, Fixture.user("2026-07-28T09:12:33.000Z", "Plan the migration"), Fixture.assistant("2026-07-28T09:12:40.000Z", "In batches"));
    Path bin = fx.root.resolve("bin2");
    tool(bin, "claude", "2.1.332 (Claude Code)");
    tool(bin, "codex", "codex-cli 0.171.0");
    Path codexHome = fx.root.resolve("codex-home");
    Sidecar s = fx.sidecar(o -> o.withEnv(Map.of("XDG_DATA_HOME", fx.data().toString(), "CODEX_HOME", codexHome.toString(),
        "PATH", bin + ":" + System.getenv("PATH"))));
    ScriptedUi ui = new ScriptedUi();
    ui.chooser = items -> items.indexOf("Codex");
    List<Handoff.Command> ran = new java.util.ArrayList<>();
    Handoff.Command c = Fixture.get(Handoff.continueIn(s, ui, id, "Plan the migration", bin.toString(), ran::add));
    assertEquals(List.of(c), ran);
    assertEquals(List.of("codex", "resume"), c.argv().subList(0, 2));
    try (var files = Files.walk(codexHome.resolve("sessions"))) {
      assertEquals(1, files.filter(p -> p.getFileName().toString().endsWith(c.argv().get(2) + ".jsonl")).count());
    }
    ScriptedUi none = new ScriptedUi();
    assertEquals(null, Fixture.get(Handoff.continueIn(s, none, id, "Plan the migration", "/nonexistent", ran::add)));
    assertEquals(Handoff.noneOnPath(Handoff.tools(s.capability())), none.said.take().message());
    assertEquals(1, ran.size());
  }
}
