// Vite's client types: a stylesheet imported for its side effect is bundled into the page's CSS.
/// <reference types="vite/client" />
