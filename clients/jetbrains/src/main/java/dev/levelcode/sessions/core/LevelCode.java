// The core of one project window, built from the settings: the sidecar, the History model, the
// pending deletions, the chat and History's lifecycle actions (pin, archive, retention, trash and
// restore, fork at a turn, relink). The plugin's project service holds one and disposes it with the
// project; the stand-alone panel and the tests build it the same way.
package dev.levelcode.sessions.core;

import dev.levelcode.sessions.core.history.HistoryModel;
import dev.levelcode.sessions.core.history.PendingDeletes;
import dev.levelcode.sessions.core.rpc.Protocol;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

public final class LevelCode implements AutoCloseable {
  /** How long a deleted chat can be brought back with Undo. */
  public static final Duration DELETE_GRACE = Duration.ofSeconds(8);

  public final Sidecar sidecar;
  public final HistoryModel history;
  public final PendingDeletes deletes;
  public final Chat chat;
  public final Lifecycle lifecycle;
  public final Log log;
  /** "Import Chats from Other AI Tools…". */
  public final Importer importer;

  public LevelCode(Sidecar sidecar, String project, Ui ui, Chat.State state, Supplier<Settings> settings, Log log,
      PendingDeletes.Timers timers, Duration grace, Clock clock) {
    this.sidecar = sidecar;
    this.log = log;
    Chat[] self = new Chat[1];
    this.deletes = new PendingDeletes(id -> Chat.deleteNow(sidecar, id), grace, timers, (id, e) -> self[0].deleteFailed(id, e));
    this.history = new HistoryModel(sidecar, deletes, project, clock);
    this.chat = new Chat(sidecar, ui, state, settings, project, history, deletes, log);
    self[0] = chat;
    this.lifecycle = new Lifecycle(sidecar, ui, settings, project, history, chat, log);
    this.importer = new Importer(sidecar, ui);
  }

  /** The usual build: settings read when the sidecar starts, the plugin's bundled sidecar if any. */
  public static LevelCode create(Settings s, Path bundled, String project, Ui ui, Chat.State state, Supplier<Settings> settings, Log log) {
    return new LevelCode(new Sidecar(options(s, bundled), log), project, ui, state, settings, log, PendingDeletes.Timers.real(),
        DELETE_GRACE, Clock.systemDefaultZone());
  }

  /** The sidecar's options from the settings. */
  public static Sidecar.Options options(Settings s, Path bundled) {
    Sidecar.Options o = Sidecar.Options.defaults().withBundled(bundled).withConsentThreshold(s.consentThreshold())
        .withLifecycle(s.autoArchiveDays(), retentionRules(s));
    if (s.sidecarPath() != null && !s.sidecarPath().isBlank()) o = o.withSidecarPath(s.sidecarPath());
    if (s.storeFolder() != null && !s.storeFolder().isBlank()) o = o.withStore(Path.of(s.storeFolder()));
    return o;
  }

  /** initializationOptions.retention from the settings: null when both rules are off (0). */
  public static Protocol.RetentionRules retentionRules(Settings s) {
    if (s.retentionKeep() <= 0 && s.retentionMaxAgeDays() <= 0) return null;
    return new Protocol.RetentionRules(s.retentionKeep() > 0 ? s.retentionKeep() : null,
        s.retentionMaxAgeDays() > 0 ? s.retentionMaxAgeDays() : null);
  }

  /** Starts the sidecar and lists the History. */
  public void start() {
    sidecar.start();
  }

  /** Carries out pending deletions, then stops the sidecar (shutdown, exit). */
  @Override
  public void close() {
    try {
      deletes.flush().get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      log.warn("pending deletions at close: " + e.getMessage());
    }
    sidecar.close();
  }
}
