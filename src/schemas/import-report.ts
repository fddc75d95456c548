/**
 * The report of an import's problems (docs/decisions.md 93), as `mds import
 * --json` prints it and the admin API sends it (`error.report` of a refused
 * data import; the duplicate rows and ignored rows of an accepted one): the
 * problems grouped by kind over runs of rows, at most 100 groups, then the
 * count of each kind. Its size is bounded whatever the file holds.
 */
import { type Static, Type } from '@sinclair/typebox';

/** Groups listed at most, and kinds counted at most. */
export const MAX_GROUPS = 100;

export const ProblemGroup = Type.Object(
  {
    line: Type.Integer({ minimum: 1, description: 'The line of the first problem of the group' }),
    lastLine: Type.Integer({ minimum: 1, description: 'The line of its last problem (`line` for one)' }),
    count: Type.Integer({ minimum: 1, description: 'The problems in the group' }),
    kind: Type.String({
      description: 'What the problems are, without the values',
      examples: ['updatedAt has no time zone'],
    }),
    message: Type.String({ description: 'The first problem of the group, as written for its line' }),
  },
  { component: 'ImportProblemGroup' },
);

const KindCount = Type.Object(
  { kind: Type.String(), count: Type.Integer({ minimum: 1 }) },
  { component: 'ImportProblemKind' },
);

export const ProblemListing = Type.Object(
  {
    count: Type.Integer({ minimum: 0, description: 'Every problem found' }),
    lines: Type.Integer({ minimum: 0, description: 'The lines holding one or more' }),
    groups: Type.Array(ProblemGroup, {
      maxItems: MAX_GROUPS,
      description:
        'Problems of one kind on consecutive rows, one group, in the order of their first line; at most 100',
    }),
    groupsNotListed: Type.Integer({ minimum: 0, description: 'Groups past the first 100' }),
    byKind: Type.Array(KindCount, {
      maxItems: MAX_GROUPS,
      description: 'The count of each kind, most frequent first; at most 100',
    }),
    kindsNotListed: Type.Integer({ minimum: 0, description: 'Kinds past the first 100' }),
  },
  { component: 'ImportProblemListing' },
);
export type ProblemGroup = Static<typeof ProblemGroup>;
export type ProblemListing = Static<typeof ProblemListing>;

/** What a file held besides its records: rows read twice, and rows and columns left empty. */
export const ImportNotes = {
  /** Rows that repeat an earlier row exactly: read once, listed as the problems are. */
  duplicateRows: ProblemListing,
  emptyRows: Type.Integer({
    minimum: 0,
    description: 'Rows of empty cells (`;;;;`) or blank lines, ignored',
  }),
  emptyColumns: Type.Integer({
    minimum: 0,
    description: 'Columns with an empty header after the named ones, ignored (their cells must be empty)',
  }),
};

export const ImportRefusal = Type.Object(
  { problems: ProblemListing, ...ImportNotes },
  {
    component: 'ImportRefusal',
    description: 'With a refused data import: every problem of the body, grouped; nothing was written',
  },
);
export type ImportRefusal = Static<typeof ImportRefusal>;

/** What a refused data import adds to the admin API's error envelope (schemas/errors.ts errorBody): its report. */
export const ImportRefusedInfo = { report: Type.Optional(ImportRefusal) };
