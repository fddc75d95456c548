/**
 * The month's statement as CSV columns: its line's fields in schema order,
 * nested ones joined with `_` (docs/decisions.md 62). Shared by
 * `GET /admin/v1/usage/statement` and `mds usage --csv`, in a module of its
 * own so that the CLI reads them without loading the admin routes (and with
 * them the serializers, fast-json-stringify and Ajv: test/cli/launcher.test.ts).
 */
import { StatementLine } from '../../schemas/admin-usage.js';
import { csvColumns } from '../csv.js';

export const STATEMENT_COLUMNS = csvColumns(StatementLine);
