// Titles of imported sessions as a person reads them: a tool's title (its own, or one its model
// wrote) sometimes carries markup that is no part of it: a compaction's `<summary>…</summary>`
// wrapper, command tags (`<command-name>/compact</command-name>`), Markdown escapes a tool
// stored (`\[\[bash\]\]`). The engine cleans each title event's `title` with cleanTitle; the
// source record stays verbatim under `raw`. Pure: no fs, no store.

/** Tags tools inject around what the user typed or the model wrote: dropped, their text kept. */
const INJECTED =
  /<\/?(?:summary|command-name|command-message|command-args|command-contents|local-command-[a-z-]+|system-reminder|task-notification|bash-input|bash-stdout|bash-stderr|user_query|user_message|user_input|task|feedback)(?:\s[^<>]*)?>/gi;
/** A whole title wrapped in one element: `<x>title</x>`. */
const WRAPPED = /^\s*<([A-Za-z][\w-]*)(?:\s[^<>]*)?>([\s\S]*)<\/\1>\s*$/;
/** A backslash before ASCII punctuation: a Markdown escape. */
const ESCAPE = /\\([!-/:-@[-`{-~])/g;

/** The title without wrappers, injected tags or Markdown escapes, on one line; '' when nothing is left. */
export function cleanTitle(title: string): string {
  let s = title;
  for (let i = 0; i < 3; i++) {
    const m = WRAPPED.exec(s);
    if (!m) break;
    s = m[2]!;
  }
  return s.replace(INJECTED, ' ').replace(ESCAPE, '$1').replace(/\s+/g, ' ').trim().slice(0, 500);
}
