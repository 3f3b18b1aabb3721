// Public API of the restore-model part of @kubesvc/proxy-iptables (re-exported by ../index.ts).
export {};
