// Public API of @kubesvc/api-types. Not implemented yet (issue 3): nothing is exported until it exists.
export {};
