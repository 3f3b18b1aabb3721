// Node adapter of @kubesvc/proxy-userspace (issue 9); nothing is exported until it exists.
export {};
