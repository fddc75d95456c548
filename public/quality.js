/*
 * Beside a parallel rate, how far its sources agree (docs/decisions.md 146): the
 * confidence in words and the organisations its consensus kept, as the record's
 * `quality` gives them (decisions 114, docs/methodology.md). A record the
 * operator entered or imported (method `import`) shows nothing; the note under
 * the table, which says what the words mean, shows only beside a badge.
 */
import { $, count, language, t } from './format.js';

function span(className, text) {
  const node = document.createElement('span');
  node.className = className;
  node.textContent = text;
  return node;
}

/** Appends the badge of a consensus to its row's header cell; an import's cell stays as it is. */
export function appendQuality(th, quality) {
  if (quality?.method !== 'consensus') return;
  const box = span('quality', '');
  box.dataset.testid = 'quality';
  box.dataset.organisations = String(quality.organisations);
  if (quality.confidence) {
    const badge = span('confidence', t(`quality.${quality.confidence}`));
    badge.dataset.confidence = quality.confidence;
    badge.dataset.testid = 'confidence';
    // Spaces between the parts: a screen reader reads the cell as words, not as "confidence5".
    box.append(badge, ' ');
  }
  const category = new Intl.PluralRules(language()).select(quality.organisations);
  const organisations = span(
    'organisations',
    t(`quality.organisations.${category}`, { n: count(quality.organisations) }),
  );
  organisations.dataset.testid = 'organisations';
  box.append(organisations);
  th.append(' ', box);
}

/**
 * The note on what the badges mean, shown when the latest rates show one; it then
 * describes the table, so a screen reader says it on entering the table.
 */
export function renderQualityNote() {
  const shown = $('latest-rows').querySelector('.quality') !== null;
  $('quality-note').hidden = !shown;
  // A hidden element named by aria-describedby would still be read: the link goes with the note.
  if (shown) $('latest-table').setAttribute('aria-describedby', 'quality-note');
  else $('latest-table').removeAttribute('aria-describedby');
}
