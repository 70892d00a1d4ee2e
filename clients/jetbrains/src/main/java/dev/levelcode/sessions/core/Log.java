// Where the core's log lines go: the IDE's log in the plugin (idea.log), stderr or a list in tests.
// One method so that any logger fits; the level is a word, as the sidecar's own lines carry one.
package dev.levelcode.sessions.core;

@FunctionalInterface
public interface Log {
  enum Level { DEBUG, INFO, WARN, ERROR }

  void log(Level level, String message);

  default void debug(String m) { log(Level.DEBUG, m); }
  default void info(String m) { log(Level.INFO, m); }
  default void warn(String m) { log(Level.WARN, m); }
  default void error(String m) { log(Level.ERROR, m); }

  /** Lines to stderr, for tests and the stand-alone panel. */
  Log STDERR = (level, m) -> System.err.println("[levelcode " + level.name().toLowerCase() + "] " + m);
}
