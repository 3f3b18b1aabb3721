// Public API of @kubesvc/proxy-userspace. Not implemented yet (issue 9): nothing is exported until it exists.
export {};
