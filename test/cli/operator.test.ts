/** `mds` operator commands and the audit log (see operator-flow.ts) on the embedded SQLite store. */
import { operatorFlow } from './operator-flow.js';

operatorFlow({ name: 'sqlite' });
