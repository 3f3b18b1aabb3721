// Public API of @kubesvc/portallocator. Not implemented yet (issue 4): nothing is exported until it exists.
export {};
