// What the node agent reports about its work: one line per sync, swap or port change, told to
// the shell's one Logger (@kubesvc/runtime's: a level and a line), the one the CLI gives the
// controllers. Figures follow the message as klog's structured form writes them:
// `iptables sync mode="partial" lines=35 ms=6.65`.

export type NodeAgentLogFields = Readonly<Record<string, string | number | boolean>>;

/** `message key=value ...`: strings quoted, numbers and booleans bare. */
export function logLine(message: string, fields: NodeAgentLogFields = {}): string {
  let line = message;
  for (const [key, value] of Object.entries(fields)) line += ` ${key}=${typeof value === 'string' ? JSON.stringify(value) : String(value)}`;
  return line;
}
