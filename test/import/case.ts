// The shape of one contract case: a source laid out as the tool lays it out, and what importing
// it must give. Each importer's cases live in test/import/cases/<tool>.ts and export
// `cases: ContractCase[]`; the contract suite (test/import/contract.test.ts) runs every case of
// every importer through the same checks (counts and order of turns, tool pairs intact, titles,
// compactions, idempotent re-import, growth between runs, a torn last line, an unknown record
// kind kept raw, hostile keys, a source deleted after import), then each importer's own tests.

export interface ExpectedSession {
  /** The tool's own session id (source.id), plus variant where it has one. */
  id: string;
  variant?: string;
  /** The project folder the tool recorded. */
  project?: string;
  /** Turns as History counts them (user messages that are not only tool results). */
  turns: number;
  /** The title the session lists with, or null for none (the first user message is then shown). */
  title?: string | null;
  /** How many compact events the import made from the tool's own compactions. */
  compactions?: number;
  /** How many tool_use/tool_result (or function_call/output) pairs the events carry. */
  toolPairs?: number;
  /** Text that must appear in the user messages, in this order. */
  userTexts?: string[];
  /** The tool's id of the session this one is a fork of: History links it (`forkedFrom`). */
  forkedFrom?: string;
  /** The parent's turns the fork goes on from, as History links it (`forkedFrom.turn`). */
  forkTurn?: number;
  /** Thinking the tool recorded, mapped to thinking parts (searched as such): texts that must appear. */
  thinking?: string[];
  /** Subagent transcripts imported as sidechains of this session (by their distinct source files). */
  sidechains?: number;
}

export interface ContractCase {
  /** Shown in the test's name: 'claude-code 2.0.x: tool calls and resume (real)'. */
  name: string;
  /** The importer's tool name. */
  tool: string;
  /** Whether the files were written by the real tool (true) or taken from public fixtures. */
  real: boolean;
  /**
   * Lays the source out under `dir` as the tool lays it out, and returns the path `import
   * --from` takes (the data folder, or one session file).
   */
  setup(dir: string): Promise<string>;
  /**
   * Optional: lays out an earlier state of the same source under `dir` (fewer records, or an
   * earlier rewrite of a whole-file JSON), for the growth check: import it, then setup()'s.
   */
  earlier?(dir: string): Promise<string>;
  sessions: ExpectedSession[];
  /**
   * Files written by the newest release, held to the clean-import rules: one History row per
   * conversation, no 0-turn row, no record kind the importer has never seen, and a transcript
   * with no kept source record, no sanitiser guard line and no injected notice.
   */
  clean?: boolean;
}
