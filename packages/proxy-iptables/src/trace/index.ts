// Public API of the trace part of @kubesvc/proxy-iptables (re-exported by ../index.ts).
export {};
