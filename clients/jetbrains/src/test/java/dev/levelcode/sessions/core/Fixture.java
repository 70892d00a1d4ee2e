// What the tests share: a temp store and project folder, the real CLI (`node bin/levelcode-sessions.js`)
// to write sessions as a user's tools do, real sidecars started the way the plugin starts them,
// and a log that can be waited on. Everything started here is stopped by close().
package dev.levelcode.sessions.core;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.gson.JsonParser;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

final class Fixture implements AutoCloseable {
  static final Path REPO = findRepo();
  static final Path BIN = REPO.resolve("bin/levelcode-sessions.js");
  /** How long a test waits for something the sidecar will do (a bound, not an assertion). */
  static final long WAIT_S = 60;

  final Path root;
  final Path store;
  final Path project;
  final Recorder log = new Recorder();
  private final List<AutoCloseable> closers = new ArrayList<>();

  Fixture() throws IOException {
    root = Files.createTempDirectory("levelcode-jb-");
    store = root.resolve("store");
    project = Files.createDirectories(root.resolve("project")).toRealPath();
  }

  private static Path findRepo() {
    String p = System.getProperty("levelcode.repo");
    Path d = p != null ? Path.of(p) : Path.of("").toAbsolutePath();
    for (Path x = d; x != null; x = x.getParent()) if (Files.isRegularFile(x.resolve("bin/levelcode-sessions.js"))) return x;
    throw new IllegalStateException("run the tests with -Dlevelcode.repo=<the repository> (bin/levelcode-sessions.js not found from " + d + ")");
  }

  /** Runs the CLI on this store; its stdout. Fails the test on a non-zero exit. */
  String cli(String stdin, String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of("node", BIN.toString()));
    cmd.addAll(List.of(args));
    cmd.add("--dir");
    cmd.add(store.toString());
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT);
    pb.environment().put("NODE_EXTRA_CA_CERTS", "");
    Process p = pb.start();
    if (stdin != null) p.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    p.waitFor(WAIT_S, TimeUnit.SECONDS);
    assertEquals(0, p.exitValue(), "levelcode-sessions " + String.join(" ", args) + " failed: " + out);
    return out;
  }

  /** `levelcode-sessions new --project P [--model M] --json`; the new id. */
  String newSession(String model) throws IOException, InterruptedException {
    List<String> a = new ArrayList<>(List.of("new", "--project", project.toString(), "--json"));
    if (model != null) a.addAll(List.of("--model", model));
    String out = cli(null, a.toArray(String[]::new));
    return JsonParser.parseString(out).getAsJsonObject().get("id").getAsString();
  }

  /** `levelcode-sessions append ID` with one JSON event a line. */
  void append(String id, String... events) throws IOException, InterruptedException {
    cli(String.join("\n", events) + "\n", "append", id);
  }

  static String user(String t, String text) {
    return "{\"kind\":\"user\",\"t\":\"" + t + "\",\"content\":" + com.google.gson.JsonParser.parseString(quote(text)) + "}";
  }

  static String assistant(String t, String text) {
    return "{\"kind\":\"assistant\",\"t\":\"" + t + "\",\"content\":[{\"type\":\"text\",\"text\":" + quote(text) + "}]}";
  }

  static String title(String t, String title) {
    return "{\"kind\":\"title\",\"t\":\"" + t + "\",\"title\":" + quote(title) + ",\"source\":\"user\"}";
  }

  static String quote(String s) {
    return new com.google.gson.JsonPrimitive(s).toString();
  }

  /** The session's file, as bytes (to check that nothing was written). */
  byte[] fileOf(String id) throws IOException {
    try (var s = Files.walk(store)) {
      Path f = s.filter(p -> p.getFileName().toString().equals(id + ".jsonl")).findFirst().orElseThrow();
      return Files.readAllBytes(f);
    }
  }

  /** The sidecars' XDG data folder: session/delete's trash is here, not the user's. */
  Path data() { return root.resolve("data"); }

  Sidecar.Options options() {
    return Sidecar.Options.defaults().withSidecarPath(BIN.toString()).withStore(store)
        .withEnv(java.util.Map.of("XDG_DATA_HOME", data().toString()));
  }

  /** Whether the session's file is in the store. */
  boolean inStore(String id) throws IOException {
    try (var s = Files.walk(store)) {
      return s.anyMatch(p -> p.getFileName().toString().equals(id + ".jsonl"));
    }
  }

  /** Whether the session's file is in the test's trash (a data()/Trash/info/*.trashinfo names it). */
  boolean inTrash(String id) throws IOException {
    Path info = data().resolve("Trash/info");
    if (!Files.isDirectory(info)) return false;
    try (var s = Files.list(info)) {
      return s.anyMatch(p -> {
        try {
          return Files.readString(p).lines().anyMatch(l -> l.startsWith("Path=") && l.endsWith("/" + id + ".jsonl"));
        } catch (IOException e) {
          return false;
        }
      });
    }
  }

  /** A sidecar on this store, started; stopped by close(). */
  Sidecar sidecar(UnaryOperator<Sidecar.Options> tweak) throws Exception {
    Sidecar s = new Sidecar(tweak.apply(options()), log);
    closers.add(s);
    s.start().get(WAIT_S, TimeUnit.SECONDS);
    return s;
  }

  void closeLater(AutoCloseable c) { closers.add(c); }

  @Override
  public void close() throws Exception {
    for (int i = closers.size() - 1; i >= 0; i--) closers.get(i).close();
    try (var s = Files.walk(root)) {
      s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  /** A Log that keeps its lines and lets a test wait for one. */
  static final class Recorder implements Log {
    private final List<String> lines = new ArrayList<>();

    @Override
    public synchronized void log(Level level, String message) {
      lines.add(level + " " + message);
      if (Boolean.getBoolean("levelcode.verbose")) System.err.println("[test log] " + level + " " + message);
      notifyAll();
    }

    synchronized List<String> lines() { return List.copyOf(lines); }

    /** Waits (at most WAIT_S) for a line matching `p`; the line, or null. */
    synchronized String await(Predicate<String> p) throws InterruptedException {
      long end = System.nanoTime() + Duration.ofSeconds(WAIT_S).toNanos();
      while (true) {
        for (String l : lines) if (p.test(l)) return l;
        long left = end - System.nanoTime();
        if (left <= 0) return null;
        wait(Math.max(1, left / 1_000_000));
      }
    }
  }

  static <T> T get(CompletableFuture<T> f) throws Exception {
    return f.get(WAIT_S, TimeUnit.SECONDS);
  }
}
