import type { ImportRefusal } from '../schemas/import-report.js';

/** An import that did not happen: nothing was written. `report` lists a refused input's problems (report.ts). */
export class ImportError extends Error {
  constructor(
    message: string,
    readonly report?: ImportRefusal,
  ) {
    super(message);
  }
}
