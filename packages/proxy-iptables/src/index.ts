// Public API of @kubesvc/proxy-iptables. Not implemented yet (issue 5): nothing is exported until it exists.
export {};
