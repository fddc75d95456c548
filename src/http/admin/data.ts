/**
 * POST /admin/v1/data/{assets|rates|gold}: a market data import over HTTP,
 * with the rules, guards, report, record and revisions of `mds import`
 * (import/run.ts, `importFile`; docs/decisions.md 51 and 58). The body is
 * NDJSON, a JSON array, CSV or the Bank of Algeria's workbook (rates), named
 * by its Content-Type; all or nothing;
 * larger than ADMIN_MAX_IMPORT_BYTES is a 413. The import's record names the
 * admin token as its actor.
 *
 * Off the serving event loop (docs/decisions.md 91): the body is received to
 * a file as it arrives and imported on a thread of its own
 * (import/threads.ts); at most MDS_ADMIN_IMPORTS at once, a place taken
 * before the body is read, others answered 429 with Retry-After.
 */
import { microsToNumber } from '../../domain/decimal.js';
import type { ImportFormat } from '../../import/detect.js';
import { DEFAULT_MAX_CHANGE_PERCENT } from '../../import/guards.js';
import { ImportError } from '../../import/run.js';
import { ImportStopped } from '../../import/threads.js';
import { workbookMaxBytes } from '../../import/workbook.js';
import {
  ADMIN_MAX_IMPORT_BYTES,
  adminResponses,
  DataImportAnswer,
  DataImportQuery,
  DataKindParams,
  IMPORT_MEDIA_TYPES,
  XLSX_MEDIA_TYPE,
} from '../../schemas/admin.js';
import { ApiError, invalidParameters, stopping } from '../errors.js';
import { importRefused, parseOptionsOf } from './data-import.js';
import { type ReceivedFile, receiveToFile } from './received-file.js';
import { type AdminRoute, adminRoute, answer } from './route.js';

type Kind = 'assets' | 'rates' | 'gold';

/** Seconds an import refused for want of a place is told to wait: an import takes seconds. */
const BUSY_RETRY_AFTER = 5;

function formatOf(contentType: string | undefined): ImportFormat {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase() as keyof typeof IMPORT_MEDIA_TYPES;
  const format = IMPORT_MEDIA_TYPES[type];
  if (!format) throw new ApiError(415, 'unsupported_media_type');
  return format;
}

function maxChangeOf(text: string | undefined): number {
  if (text === undefined) return DEFAULT_MAX_CHANGE_PERCENT;
  const value = Number(text);
  if (!(value > 0 && value <= 10_000)) {
    throw invalidParameters([
      { parameter: 'maxChange', message: 'must be a percentage above 0 and at most 10000, e.g. 35' },
    ]);
  }
  return value;
}

export const dataRoutes: AdminRoute[] = [
  adminRoute({
    method: 'POST',
    url: '/data/{kind}',
    scope: 'data:write',
    bodyLimit: ADMIN_MAX_IMPORT_BYTES,
    streamBody: {
      types: Object.keys(IMPORT_MEDIA_TYPES),
      receive: async (request, payload, services) => {
        if (services.lifecycle.draining) throw stopping();
        const place = services.imports.reserve();
        if (place === null) {
          throw new ApiError(
            429,
            'too_many_requests',
            undefined,
            { 'retry-after': BUSY_RETRY_AFTER },
            `${services.imports.max} imports are already running in this process (MDS_ADMIN_IMPORTS); ` +
              `send it again in ${BUSY_RETRY_AFTER} s`,
          );
        }
        // A workbook's own cap (docs/decisions.md 141), checked as the body arrives.
        const workbook = formatOf(request.headers['content-type']) === 'xlsx';
        const limit = workbook
          ? Math.min(workbookMaxBytes(), ADMIN_MAX_IMPORT_BYTES)
          : ADMIN_MAX_IMPORT_BYTES;
        return receiveToFile(payload, request.headers['content-length'], limit, place.release);
      },
    },
    schema: {
      tags: ['Data'],
      operationId: 'importData',
      summary: 'Import market data',
      description:
        'Imports the asset directory, rates or gold references, as `mds import` does: the body is NDJSON ' +
        '(`application/x-ndjson`), a JSON array (`application/json`) or CSV (`text/csv`), at most ' +
        `${ADMIN_MAX_IMPORT_BYTES / 1024 / 1024} MB; or, for \`rates\`, the Bank of Algeria’s workbook of official ` +
        `rates (\`${XLSX_MEDIA_TYPE}\`, as \`mds import official-boa\`), at most MDS_WORKBOOK_MAX_MB ` +
        '(20 MB unless set) and MDS_WORKBOOK_UNPACKED_MB unpacked (100 MB unless set). ' +
        'Every record is checked, against the asset directory and the ' +
        'plausibility guards too, before anything is written; then all of it is written in one transaction with ' +
        'the import’s record and the revisions of the observations it changes. A refused import writes nothing ' +
        'and answers 400 with every problem grouped by kind over consecutive lines (`error.report`; at most 100 ' +
        'groups, one detail each, then the count of each kind). `dryRun=true` runs the real import and rolls it back.',
      params: DataKindParams,
      querystring: DataImportQuery,
      response: adminResponses({ status: 200, schema: DataImportAnswer }, [404, 413, 415]),
    },
    handler: async (request, reply, { services, token }) => {
      const { kind } = request.params as { kind: Kind };
      const query = request.query as DataImportQuery;
      const format = formatOf(request.headers['content-type']);
      const maxChangePercent = maxChangeOf(query.maxChange);
      const body = request.body as ReceivedFile;
      body.hold();
      try {
        const report = await services.imports.run({
          url: services.store.url,
          kind,
          file: body.path,
          format,
          options: parseOptionsOf(query),
          checks: {
            maxChangePercent,
            acceptOutliers: query.acceptOutliers === 'true',
            dryRun: query.dryRun === 'true',
            reinstate: query.reinstate === 'true',
            actor: token.publicId,
            sourceName: 'admin-api',
          },
        });
        return answer(request, reply, {
          importId: report.importId,
          kind: report.kind,
          dryRun: report.dryRun,
          received: report.received,
          inserted: report.inserted,
          updated: report.updated,
          unchanged: report.unchanged,
          retracted: report.retracted,
          reinstated: report.reinstated,
          revisions: report.revisions.map((r) => ({
            code: r.code,
            source: r.source,
            updatedAt: new Date(r.updatedAt).toISOString(),
            old: { buy: microsToNumber(r.old.buy), sell: microsToNumber(r.old.sell) },
            new: { buy: microsToNumber(r.new.buy), sell: microsToNumber(r.new.sell) },
          })),
          outliers: report.outliers,
          duplicateRows: report.duplicateRows,
          emptyRows: report.emptyRows,
          emptyColumns: report.emptyColumns,
          ...(report.skippedSheets ? { skippedSheets: report.skippedSheets } : {}),
          ...(report.roundedRates ? { roundedRates: report.roundedRates } : {}),
        });
      } catch (err) {
        if (err instanceof ImportError) throw importRefused(err);
        if (err instanceof ImportStopped) throw stopping();
        throw err;
      } finally {
        body.finish();
      }
    },
  }),
];
