/**
 * What the history operations (rates, premium, gold) share: the window and
 * cursor rules, the `currency` list cap, and the page cache of each data
 * version, JSON and CSV (decisions §12).
 */
import type { TObject, TSchema } from '@sinclair/typebox';
import { type HistoryWindow, MAX_WINDOW_DAYS, resolveWindow } from '../../domain/history.js';
import { type Interval, MAX_INTERVAL_WINDOW_DAYS } from '../../domain/intervals.js';
import type { Services } from '../../runtime/services.js';
import type { MarketSnapshot } from '../../runtime/snapshot.js';
import { MAX_CODES } from '../../schemas/common.js';
import { pageResponses, type Status } from '../../schemas/responses.js';
import { type CsvColumns, csvColumns, csvPage, toCsv } from '../csv.js';
import type { ErrorDetail } from '../errors.js';
import type { PageCache } from '../page-cache.js';
import { dedupe, MAX_AGE, type Prepared, type PreparedAnswer } from '../respond.js';
import { type EnvelopeSchema, preparer } from '../serialize.js';
import { pagesOf } from './bodies.js';

/** What a history operation's refinement adds to its validated query. */
export interface Windowed {
  window: HistoryWindow;
}

/** Shared by every `currency` list parameter: the 25-code cap counts distinct codes. */
export function checkCodeCount(list: string | undefined, problems: ErrorDetail[]): void {
  if (list !== undefined && dedupe(list).length > MAX_CODES) {
    problems.push({ parameter: 'currency', message: `must list at most ${MAX_CODES} distinct codes` });
  }
}

/**
 * The window and cursor rules. Each runs once the parameters it reads passed
 * their own rules, whatever else failed, so that every problem of a request is
 * reported together (decisions §6). `filters` names the parameters besides
 * `from` and `to` that `scope` binds the cursor to.
 */
export function windowRefinement<
  T extends { from?: string; to?: string; cursor?: string; interval?: Interval; window?: HistoryWindow },
>(services: Services, scope: (q: T) => string, positionLength: number, filters: readonly string[] = []) {
  return (q: T, problems: ErrorDetail[]) => {
    // A parameter that failed its own rule is missing from `q`, as an absent one is;
    // only the problems tell them apart.
    const failed = (name: string) => problems.some((p) => p.parameter === name);
    const checks = { dates: !failed('from') && !failed('to'), filters: !filters.some(failed) };
    // A broken `interval` is reported on its own, not as a window too long without it.
    const intervals = q.interval !== undefined || failed('interval');
    const window = resolveWindow(
      q,
      scope(q),
      services.cursors,
      positionLength,
      services.now(),
      problems,
      checks,
      intervals ? MAX_INTERVAL_WINDOW_DAYS : MAX_WINDOW_DAYS,
    );
    if (window) q.window = window;
  };
}

/**
 * What a cursor is bound to: `scope`, and with `interval` the interval too, so
 * that a cursor reused with another interval is refused (decisions 131). A
 * plain page's scope is the one its cursors always had.
 */
export const withInterval = (scope: string, interval: Interval | undefined): string =>
  interval === undefined ? scope : `${scope}|interval=${interval}`;

/** Everything that decides a history page's bytes, request id aside. */
export function pageKey(scope: string, q: { from?: string; to?: string; limit: number } & Windowed): string {
  const { window } = q;
  return `${scope}|${q.from ?? ''}|${q.to ?? ''}|${window.from}|${window.to}|${window.position?.join('.') ?? ''}|${q.limit}`;
}

/** Where a page's CSV is cached, beside its JSON page. */
const csvKey = (key: string): string => `${key}|csv`;

/** A page this version of the data has already served, JSON or CSV: the operation's `ready` answer. */
export function cachedPage(pages: PageCache, key: string, csv: boolean): PreparedAnswer | undefined {
  const body = pages.get(csv ? csvKey(key) : key);
  return body && { body, maxAge: MAX_AGE.history };
}

/**
 * The page a history request asks for, from this data version's cache or made
 * and kept: the JSON page (`build` makes it), or with `columns` its CSV,
 * made from the JSON page so that both hold the same records (decisions §12).
 */
export async function historyPage(
  pages: PageCache,
  key: string,
  columns: CsvColumns | null,
  build: () => Promise<Prepared>,
): Promise<PreparedAnswer> {
  if (columns) {
    const hit = pages.get(csvKey(key));
    if (hit) return { body: hit, maxAge: MAX_AGE.history };
  }
  let json = pages.get(key);
  if (!json) {
    json = await build();
    pages.set(key, json);
  }
  if (!columns) return { body: json, maxAge: MAX_AGE.history };
  const csv = csvPage(json, columns);
  pages.set(csvKey(key), csv);
  return { body: csv, maxAge: MAX_AGE.history };
}

/** The meta members every history page has after its own (schemas/market.ts, PageWindow). */
export function windowMeta(window: HistoryWindow, limit: number, cursor: string | null) {
  return {
    from: new Date(window.from).toISOString(),
    to: new Date(window.to).toISOString(),
    limit,
    nextCursor: cursor,
  };
}

/** What a history operation says of itself to historyParts. */
export interface HistorySpec<S extends EnvelopeSchema, I extends EnvelopeSchema, Q> {
  /** The page's schema without `interval`, and the schema of one of its records (the CSV columns). */
  response: S;
  record: TObject;
  /** The page with `interval` and its record (decisions 128); the 200 as the document shows both. */
  intervals: { response: I; record: TObject };
  documented: TSchema;
  /** The 200 answer's description, its error statuses, and the records its examples show. */
  description: string;
  statuses: Status[];
  example: readonly unknown[];
  /** What a cursor is bound to, its position's length, and the parameters besides the window it reads. */
  scope: (q: Q) => string;
  positionLength: number;
  filters?: readonly string[];
}

/**
 * The parts every history operation (rates, premium, gold) is made of, from
 * its schemas: its serializer, its documented answers (JSON and CSV), its
 * window refinement, its cached page (`ready`), and the
 * page made or kept in this data version's cache (`page`). A route adds its
 * URL, its texts, its entitlement and how a page's records are read.
 */
export function historyParts<
  S extends EnvelopeSchema,
  I extends EnvelopeSchema,
  Q extends { from?: string; to?: string; limit: number; interval?: Interval } & Windowed,
>(services: Services, spec: HistorySpec<S, I, Q>) {
  const columns = csvColumns(spec.record);
  const intervalColumns = csvColumns(spec.intervals.record);
  const key = (q: Q) => pageKey(spec.scope(q), q);
  return {
    prepare: preparer(spec.response),
    prepareIntervals: preparer(spec.intervals.response),
    response: pageResponses(
      spec.documented,
      spec.description,
      spec.statuses,
      toCsv(columns, spec.example),
      `${columns.header}; with \`interval\`: ${intervalColumns.header}`,
    ),
    refine: windowRefinement<Q>(services, spec.scope, spec.positionLength, spec.filters),
    csv: true,
    ready: (q: Q, csv: boolean) => cachedPage(pagesOf(services.market.snapshot), key(q), csv),
    /** The page `q` asks for in `snapshot`'s data, JSON or CSV: kept, or made by `build`. */
    page: (snapshot: MarketSnapshot, q: Q, csv: boolean, build: () => Promise<Prepared>) =>
      historyPage(pagesOf(snapshot), key(q), csv ? (q.interval ? intervalColumns : columns) : null, build),
  };
}
