/** `mds` access flow (see access-flow.ts) on the embedded SQLite store. */
import { accessFlow } from './access-flow.js';

accessFlow({ name: 'sqlite' });
