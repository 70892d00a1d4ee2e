// Sidecar logging: every line to stderr (stdout carries protocol frames only), and to the client
// as window/logMessage at the level it asked for with `trace` in initialize or `$/setTrace`
// ('off': nothing, 'messages': info and up, 'verbose': everything).
// Depends on nothing but a send function: no store, no JSON-RPC types.

export type TraceValue = 'off' | 'messages' | 'verbose';
export type Level = 'error' | 'warn' | 'info' | 'debug';

/** LSP MessageType numbers. */
const MESSAGE_TYPE: Record<Level, number> = { error: 1, warn: 2, info: 3, debug: 5 };

export class Log {
  trace: TraceValue = 'off';
  /** Set once the connection is up; cleared when it goes away. */
  send: ((type: number, message: string) => void) | undefined;
  /** Minimum level written to stderr; LEVELCODE_SESSIONS_LOG=debug shows everything. */
  private readonly stderrLevel: Level;

  constructor(env: NodeJS.ProcessEnv = process.env) {
    const v = env.LEVELCODE_SESSIONS_LOG;
    this.stderrLevel = v === 'debug' || v === 'warn' || v === 'error' || v === 'info' ? v : 'info';
  }

  setTrace(value: unknown): void {
    this.trace = value === 'messages' || value === 'verbose' ? value : 'off';
  }

  error(msg: string): void {
    this.write('error', msg);
  }
  warn(msg: string): void {
    this.write('warn', msg);
  }
  info(msg: string): void {
    this.write('info', msg);
  }
  debug(msg: string): void {
    this.write('debug', msg);
  }

  private write(level: Level, msg: string): void {
    if (rank(level) <= rank(this.stderrLevel)) {
      process.stderr.write(`[levelcode-sessions ${process.pid}] ${level}: ${msg}\n`);
    }
    const toClient = this.trace === 'verbose' || (this.trace === 'messages' && level !== 'debug');
    if (toClient && this.send) {
      try {
        this.send(MESSAGE_TYPE[level], msg);
      } catch {
        /* the connection is closing */
      }
    }
  }
}

function rank(l: Level): number {
  return l === 'error' ? 0 : l === 'warn' ? 1 : l === 'info' ? 2 : 3;
}
