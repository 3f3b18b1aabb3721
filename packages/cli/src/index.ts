// Public API of @kubesvc/cli. Not implemented yet: nothing is exported until it exists.
export {};
