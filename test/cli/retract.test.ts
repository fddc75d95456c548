/** `mds observations retract` (retract-flow.ts) on SQLite. */
import { retractFlow } from './retract-flow.js';

retractFlow({ name: 'sqlite' });
