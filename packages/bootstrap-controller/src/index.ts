// Public API of @kubesvc/bootstrap-controller. Not implemented yet (issue 8): nothing is exported until it exists.
export {};
