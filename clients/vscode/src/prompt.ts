// Turns what the sidecar sends in its callbacks (session/title, session/summarize) into the one
// prompt a vscode.lm model gets, and cleans the model's answer. Pure: no `vscode` import.

const MAX_PROMPT_CHARS = 400_000;

/** Plain text of provider content: strings as they are, text blocks joined, other blocks as JSON. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((b) => {
        if (b && typeof b === 'object') {
          const block = b as Record<string, unknown>;
          if (block.type === 'text' && typeof block.text === 'string') return block.text;
          // The vscode-lm target (protocol.md "Resume targets"): {type:"text", value}, toolCall, toolResult.
          if (block.type === 'text' && typeof block.value === 'string') return block.value;
          if (block.type === 'toolCall') return `[tool call ${String(block.name ?? '')}: ${JSON.stringify(block.input ?? {})}]`;
          if (block.type === 'toolResult') return `[tool result: ${contentText(block.content)}]`;
          if (block.type === 'tool_use') return `[tool call ${String(block.name ?? '')}: ${JSON.stringify(block.input ?? {})}]`;
          if (block.type === 'tool_result') return `[tool result: ${contentText(block.content)}]`;
        }
        return typeof b === 'string' ? b : JSON.stringify(b);
      })
      .join('\n');
  }
  if (content === undefined || content === null) return '';
  return JSON.stringify(content);
}

/** The head of a session (verbatim messages, {role, content}) as a readable transcript. */
export function transcriptForModel(messages: readonly unknown[]): string {
  const parts: string[] = [];
  for (const m of messages) {
    if (m && typeof m === 'object' && 'role' in m) {
      const msg = m as { role: unknown; content?: unknown };
      parts.push(`${String(msg.role).toUpperCase()}:\n${contentText(msg.content)}`);
    } else {
      parts.push(contentText(m));
    }
  }
  const text = parts.join('\n\n');
  // A model with a smaller window than the planner assumed: keep the end, which matters most.
  return text.length > MAX_PROMPT_CHARS ? '…\n' + text.slice(text.length - MAX_PROMPT_CHARS) : text;
}

export function summarizePrompt(instructions: string, messages: readonly unknown[]): string {
  return `${instructions.trim()}\n\n<transcript>\n${transcriptForModel(messages)}\n</transcript>`;
}

export function titlePrompt(instructions: string, messages: readonly { role: string; text: string }[]): string {
  const lines = messages.map((m) => `${m.role === 'user' ? 'User' : 'Assistant'}: ${m.text}`);
  return `${instructions.trim()}\n\n${lines.join('\n\n')}`;
}

/** A model's title answer made into one clean line (quotes, "Title:" and trailing dots dropped). */
export function cleanTitle(answer: string): string {
  const line =
    answer
      .split(/\r?\n/)
      .map((l) => l.trim())
      .find((l) => l.length > 0) ?? '';
  return line
    .replace(/^(title\s*:\s*)/i, '')
    .replace(/^["'“”‘’`*#\s]+|["'“”‘’`*\s]+$/g, '')
    .replace(/\.+$/, '')
    .slice(0, 500)
    .trim();
}
