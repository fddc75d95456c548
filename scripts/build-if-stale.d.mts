/** Why dist/mds.mjs (under `dir`, the project root by default) needs building, or null when it is up to date. */
export declare function staleness(dir?: string): string | null;
