// The user's settings the core reads (Settings | Tools | LevelCode Sessions in the IDE): the store
// folder, the sidecar path, the resume budget and the consent threshold, and the context window
// to assume when the model does not say. Null or blank: the default.
package dev.levelcode.sessions.core;

public record Settings(String storeFolder, String sidecarPath, int contextWindow, double budgetRatio, int consentThreshold) {
  public static final int DEFAULT_CONTEXT_WINDOW = 128_000;
  public static final double DEFAULT_BUDGET_RATIO = 0.4;
  public static final int DEFAULT_CONSENT_THRESHOLD = 50_000;

  public static Settings defaults() {
    return new Settings(null, null, DEFAULT_CONTEXT_WINDOW, DEFAULT_BUDGET_RATIO, DEFAULT_CONSENT_THRESHOLD);
  }

  /** An error text for the settings page, or null when they are valid. */
  public String problem() {
    if (contextWindow <= 0) return "The context window must be a positive number of tokens.";
    if (!(budgetRatio > 0 && budgetRatio <= 1)) return "The budget must be more than 0 and at most 1 (a share of the window).";
    if (consentThreshold < 0) return "The consent threshold cannot be negative.";
    return null;
  }
}
