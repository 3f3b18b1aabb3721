/**
 * True when every package under `repoRoot`/packages/ that has a tsconfig.lib.json has a
 * dist/tsconfig.lib.tsbuildinfo newer than that config and than everything under its src/.
 */
export declare function checkoutBuildIsFresh(repoRoot: URL): boolean;
