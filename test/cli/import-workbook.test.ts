/** `mds import official-boa` (see import-workbook-flow.ts) on the embedded SQLite store. */
import { workbookFlow } from './import-workbook-flow.js';

workbookFlow({ name: 'sqlite' });
