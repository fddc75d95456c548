/** `mds init` (see init-flow.ts) on the embedded SQLite store. */
import { initFlow } from './init-flow.js';

initFlow({ name: 'sqlite' });
