// What the node agent reports about its work: one line per sync, swap or port change, with
// the figures as fields. The CLI prints them; tests collect them.

export type NodeAgentLogFields = Readonly<Record<string, string | number | boolean>>;

export interface NodeAgentLogger {
  info(message: string, fields?: NodeAgentLogFields): void;
  warn(message: string, fields?: NodeAgentLogFields): void;
}

/** A logger that drops everything. */
export const silentLogger: NodeAgentLogger = {
  info: () => undefined,
  warn: () => undefined,
};
