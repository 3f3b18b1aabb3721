// Public API of @kubesvc/ipallocator. Not implemented yet (issue 4): nothing is exported until it exists.
export {};
