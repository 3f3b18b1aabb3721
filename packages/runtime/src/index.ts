// Public API of @kubesvc/runtime. Not implemented yet: nothing is exported until it exists.
export {};
