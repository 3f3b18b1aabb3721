// What the node agent reports about its work: one line per sync, swap or port change. The
// logger has the shape of the shell's other loggers (a level and a line), so the CLI can hand
// the agent the one it gives the controllers. Figures follow the message as klog's structured
// form writes them: `iptables sync mode="partial" lines=35 ms=6.65`.

export type NodeAgentLogLevel = 'error' | 'warning' | 'info';

export interface NodeAgentLogger {
  log(level: NodeAgentLogLevel, message: string): void;
}

export type NodeAgentLogFields = Readonly<Record<string, string | number | boolean>>;

/** `message key=value ...`: strings quoted, numbers and booleans bare. */
export function logLine(message: string, fields: NodeAgentLogFields = {}): string {
  let line = message;
  for (const [key, value] of Object.entries(fields)) line += ` ${key}=${typeof value === 'string' ? JSON.stringify(value) : String(value)}`;
  return line;
}

/** A logger that drops everything. */
export const quietNodeLogger: NodeAgentLogger = { log: () => undefined };
