/** `mds` import flow (see import-flow.ts) on the embedded SQLite store. */
import { importFlow } from './import-flow.js';

importFlow({ name: 'sqlite' });
