// The user's settings the core reads (Settings | Tools | LevelCode Sessions in the IDE): the store
// folder, the sidecar path, the resume budget and the consent threshold, the context window to
// assume when the model does not say, and History's lifecycle rules: auto-archive after N idle
// days (default 30, 0 off) and retention (keep the newest N per project, archive what is older
// than N days; both 0, off, by default), sent to the sidecar as initializationOptions and used
// by Apply Retention. Null or blank: the default.
package dev.levelcode.sessions.core;

public record Settings(String storeFolder, String sidecarPath, int contextWindow, double budgetRatio, int consentThreshold,
    int autoArchiveDays, int retentionKeep, int retentionMaxAgeDays) {
  public static final int DEFAULT_CONTEXT_WINDOW = 128_000;
  public static final double DEFAULT_BUDGET_RATIO = 0.4;
  public static final int DEFAULT_CONSENT_THRESHOLD = 50_000;
  public static final int DEFAULT_AUTO_ARCHIVE_DAYS = 30;

  /** The resume settings with the lifecycle defaults (auto-archive after 30 days, no retention). */
  public Settings(String storeFolder, String sidecarPath, int contextWindow, double budgetRatio, int consentThreshold) {
    this(storeFolder, sidecarPath, contextWindow, budgetRatio, consentThreshold, DEFAULT_AUTO_ARCHIVE_DAYS, 0, 0);
  }

  public static Settings defaults() {
    return new Settings(null, null, DEFAULT_CONTEXT_WINDOW, DEFAULT_BUDGET_RATIO, DEFAULT_CONSENT_THRESHOLD);
  }

  /** The same settings with other lifecycle rules (0: that rule off). */
  public Settings withLifecycle(int autoArchive, int keep, int maxAge) {
    return new Settings(storeFolder, sidecarPath, contextWindow, budgetRatio, consentThreshold, autoArchive, keep, maxAge);
  }

  /** An error text for the settings page, or null when they are valid. */
  public String problem() {
    if (contextWindow <= 0) return "The context window must be a positive number of tokens.";
    if (!(budgetRatio > 0 && budgetRatio <= 1)) return "The budget must be more than 0 and at most 1 (a share of the window).";
    if (consentThreshold < 0) return "The consent threshold cannot be negative.";
    if (autoArchiveDays < 0) return "Auto-archive days cannot be negative (0 turns it off).";
    if (retentionKeep < 0) return "The number of chats to keep cannot be negative (0: no limit).";
    if (retentionMaxAgeDays < 0) return "The oldest age kept cannot be negative (0: no limit).";
    return null;
  }
}
