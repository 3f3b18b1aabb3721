// Public API of @kubesvc/discovery. Not implemented yet (issue 7): nothing is exported until it exists.
export {};
