// The scripts' words in the reader's language, from Django's JavaScript catalogue (/jsi18n/,
// loaded by every page before its modules): _('text'), or _('%(n)s left', { n }) with values;
// ngettext('%(count)s seat', '%(count)s seats', count, { count }) where a count picks the form.
// `makemessages -d djangojs` finds both by their names.
const catalogue = globalThis;
const fill = (text, values) => (values ? catalogue.interpolate(text, values, true) : text);

export function _(text, values) {
  return fill(catalogue.gettext ? catalogue.gettext(text) : text, values);
}

export function ngettext(one, many, count, values) {
  const chosen = catalogue.ngettext ? catalogue.ngettext(one, many, count) : (count === 1 ? one : many);
  return fill(chosen, { count, ...values });
}

export function pgettext(context, text, values) {
  return fill(catalogue.pgettext ? catalogue.pgettext(context, text) : text, values);
}

// The reader's language, as the page says it (<html lang>): numbers and dates written its way.
export const language = document.documentElement.lang || 'en';

// A moment as the reader writes it, in the account's time zone (<html data-time-zone>; a visitor's
// own browser's when the page names none).
const zone = document.documentElement.dataset.timeZone || undefined;
export function dateText(iso, options = { dateStyle: 'medium', timeStyle: 'short' }) {
  return new Intl.DateTimeFormat(language, { ...options, timeZone: zone }).format(new Date(iso));
}
export const timeText = (iso) => dateText(iso, { timeStyle: 'short' });

// A number as the reader writes it (1.5 in English, 1,5 in Dutch); `digits` fixes the decimals.
export function numberText(value, digits) {
  if (typeof value !== 'number') return String(value ?? '');
  const fixed = digits === undefined ? {} : { minimumFractionDigits: digits, maximumFractionDigits: digits };
  return new Intl.NumberFormat(language, { useGrouping: false, ...fixed }).format(value);
}

// The API's status and reason codes (a game's, a seek's, an invitation's, how a game ended) in words.
const WORDS = {
  open: _('open'), active: _('active'), finished: _('finished'), pending: _('pending'), declined: _('declined'),
  paired: _('paired'), cancelled: _('cancelled'), expired: _('expired'), resigned: _('resigned'),
  draw_agreed: _('draw agreed'), aborted: _('aborted'), abandoned: _('abandoned'), timeout: _('timeout'),
  forfeit: _('forfeit'), registering: _('registering'), running: _('running'),
};
export const word = (code) => WORDS[code] ?? String(code ?? '').replaceAll('_', ' ');
