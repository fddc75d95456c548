/**
 * docs/webhooks.md, "Events", against the event schemas
 * (src/domain/webhook-events.ts): its table has one row per event type, in
 * the schemas' order, each saying when the event is sent as its schema's
 * description does and listing the fields of its `data`, every one and no
 * other, in the order they are sent ("the same" repeats the row above, "the
 * same, and `x`" adds to it); and the example event is one its schema allows.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EVENT_DATA, EVENT_SCHEMAS } from '../../src/domain/webhook-events.js';
import { EVENT_TYPES, type EventType } from '../../src/domain/webhooks.js';
import { newAjv } from '../support/openapi.js';
import { fencedBlocks, REPO } from '../support/python.js';

const DOC = readFileSync(join(REPO, 'docs', 'webhooks.md'), 'utf8');

interface Row {
  type: string;
  when: string;
  fields: string[];
}

/** The rows of the table whose header is `| Type | When | \`data\` |`, each row's fields read from its last cell. */
function eventTable(markdown: string): Row[] {
  const lines = markdown.split('\n');
  const header = lines.findIndex((l) => /^\|\s*Type\s*\|\s*When\s*\|\s*`data`\s*\|$/.test(l));
  if (header < 0) throw new Error('docs/webhooks.md has no table of event types');
  const rows: Row[] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    const [type, when, data] = line
      .slice(1, -1)
      .split('|')
      .map((c) => c.trim());
    const named = [...(data ?? '').matchAll(/`([A-Za-z]+)`/g)].map((m) => m[1]!);
    const previous = rows.at(-1)?.fields ?? [];
    rows.push({
      type: (type ?? '').replace(/^`|`$/g, ''),
      when: when ?? '',
      fields: data?.startsWith('the same') ? [...previous, ...named] : named,
    });
  }
  return rows;
}

/** What the schemas say each row holds. */
const expected = (): Row[] =>
  EVENT_TYPES.map((type) => ({
    type,
    when: EVENT_DATA[type].description!,
    fields: Object.keys(EVENT_DATA[type].properties),
  }));

/** The docs write a plain apostrophe where the schemas' descriptions have a typographic one. */
const plain = (rows: Row[]) => rows.map((r) => ({ ...r, when: r.when.replaceAll('’', "'") }));

describe('docs/webhooks.md, "Events"', () => {
  it('lists every event type with when it is sent and every field of its data, as the schemas do', () => {
    expect(plain(eventTable(DOC))).toEqual(plain(expected()));
  });

  it('notices a type, a field or a "when" missing or wrong', () => {
    const mutations: Array<[string, string]> = [
      ['| `key.expiring`', '| `key.expires`'],
      ['`keyId`, `grantId`, `accountId`, `expiresAt`', '`keyId`, `grantId`, `expiresAt`'],
      ['the same, and `revokedAt`', 'the same'],
      ['an import wrote observations', 'an import ran'],
    ];
    for (const [from, to] of mutations) {
      expect(DOC).toContain(from);
      expect(plain(eventTable(DOC.replace(from, to)))).not.toEqual(plain(expected()));
    }
    const lines = DOC.split('\n');
    const withoutRow = lines.filter((l) => !l.startsWith('| `data.fresh`')).join('\n');
    expect(plain(eventTable(withoutRow))).not.toEqual(plain(expected()));
  });

  it('shows an example event its schema allows', () => {
    const events = DOC.slice(DOC.indexOf('## Events'));
    const example = JSON.parse(fencedBlocks(events, 'json')[0]!) as { type: EventType };
    const validate = newAjv().compile(EVENT_SCHEMAS[example.type]);
    expect(validate(example), JSON.stringify(validate.errors)).toBe(true);
  });
});
