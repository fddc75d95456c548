/*
 * The page's language and the formats of its figures and dates, for the charts
 * page and the reporters' page (served there as /report/format.js, docs/decisions.md
 * 147): each gives its own strings with speak() before it shows anything.
 *
 * The language is the one the visitor chose on the page (kept in localStorage),
 * else the first of the browser's languages (navigator.languages) the page
 * speaks, else English. Figures and dates use the browser's own locale for
 * that language (en-GB, fr-CA…) when it lists one, else the language itself.
 * The API keeps 4 decimals; percentages are shown to 2 (docs/decisions.md, 66).
 */
export const $ = (id) => document.getElementById(id);

const primary = (tag) => String(tag).toLowerCase().split('-')[0];

const current = {
  language: 'en',
  locale: 'en',
  formats: null,
  page: { store: null, languages: ['en'], names: { en: 'English' }, strings: { en: {} } },
};

/**
 * The page's languages (the switch's order) and each one's name in itself, its
 * strings (`strings[language][key]`, English complete) and the localStorage key
 * that keeps the visitor's choice.
 */
export function speak(page) {
  current.page = page;
}

export const language = () => current.language;
/** The locale the figures and dates are formatted for (en-GB, fr-CA, ar…). */
export const locale = () => current.locale;

/** The stored choice, else the browser's first language the page speaks, else English. */
export function initialLanguage() {
  let stored = null;
  try {
    stored = localStorage.getItem(current.page.store);
  } catch {
    // Storage refused (private mode, policy): the browser's languages decide.
  }
  const { languages } = current.page;
  if (languages.includes(stored)) return stored;
  const wanted = navigator.languages?.length ? navigator.languages : [navigator.language];
  return wanted.map(primary).find((code) => languages.includes(code)) ?? 'en';
}

/** Switches the page to `code`; `remember` keeps the choice for the next visit. */
export function setLanguage(code, remember) {
  if (!current.page.languages.includes(code)) code = 'en';
  if (remember) {
    try {
      localStorage.setItem(current.page.store, code);
    } catch {
      // The choice holds for this page only.
    }
  }
  current.language = code;
  const own = (navigator.languages ?? []).find((tag) => primary(tag) === code);
  current.locale = Intl.NumberFormat.supportedLocalesOf(own ? [own] : []).length ? own : code;
  current.formats = formats(current.locale);
  const html = document.documentElement;
  html.lang = code;
  html.dir = code === 'ar' ? 'rtl' : 'ltr';
  applyStatic();
}

function formats(locale) {
  const number = (options) => new Intl.NumberFormat(locale, options);
  return {
    rate: number({ minimumFractionDigits: 2, maximumFractionDigits: 4 }),
    signedRate: number({ minimumFractionDigits: 2, maximumFractionDigits: 4, signDisplay: 'exceptZero' }),
    count: number({ maximumFractionDigits: 0 }),
    tick: number({ maximumFractionDigits: 2 }),
    percent: number({ style: 'percent', minimumFractionDigits: 2, maximumFractionDigits: 2 }),
    signedPercent: number({
      style: 'percent',
      minimumFractionDigits: 2,
      maximumFractionDigits: 2,
      signDisplay: 'exceptZero',
    }),
    instant: new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }),
    day: new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: 'UTC' }),
    list: new Intl.ListFormat(locale, { style: 'long', type: 'conjunction' }),
  };
}

/** The string `key` in the page's language, `{name}` replaced by `params.name`. */
export function t(key, params = {}) {
  const { strings } = current.page;
  const text = strings[current.language][key] ?? strings.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole));
}

const f = () => current.formats;
/** A rate or an amount in DZD: thousands separators, 2 to 4 decimals. */
export const rate = (n) => f().rate.format(n);
export const signedRate = (n) => f().signedRate.format(n);
export const count = (n) => f().count.format(n);
export const tick = (n) => f().tick.format(n);
/** A percent as the API gives it (68.0122 for 68.0122 %), shown to 2 decimals. */
export const percent = (p) => f().percent.format(p / 100);
export const signedPercent = (p) => f().signedPercent.format(p / 100);
/** An instant (ISO 8601) in the reader's time zone. */
export const instant = (iso) => f().instant.format(new Date(iso));
/** A UTC day (YYYY-MM-DD). */
export const day = (isoDay) => f().day.format(new Date(`${isoDay}T00:00:00Z`));
export const list = (items) => f().list.format(items);

/** An amount of `code` (DZD, EUR…) with the currency's own decimals; codes Intl does not know keep their code. */
export function money(amount, code) {
  try {
    return new Intl.NumberFormat(current.locale, { style: 'currency', currency: code }).format(amount);
  } catch {
    return `${rate(amount)} ${code}`;
  }
}

/**
 * The page's fixed text: `data-i18n` names the string of an element's text,
 * `data-i18n-n` a count it takes; `data-i18n-label` the string of its aria-label.
 */
export function applyStatic() {
  document.title = t('pageTitle');
  for (const node of document.querySelectorAll('[data-i18n]')) {
    const n = node.dataset.i18nN;
    node.textContent = t(node.dataset.i18n, n === undefined ? {} : { n: count(Number(n)) });
  }
  const select = $('language');
  if (select && select.options.length === 0) {
    select.append(...current.page.languages.map((code) => languageOption(code)));
  }
  if (select) select.value = current.language;
}

function languageOption(code) {
  const option = new Option(current.page.names[code], code);
  option.lang = code;
  return option;
}
