// Node adapter of @kubesvc/discovery (issue 7); nothing is exported until it exists.
export {};
