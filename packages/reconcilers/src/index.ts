// Public API of @kubesvc/reconcilers. Not implemented yet (issue 8): nothing is exported until it exists.
export {};
