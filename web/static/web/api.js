// The public API, from the browser: the session cookie authenticates, the CSRF token guards writes.
import { _, pgettext } from './i18n.js';

const csrfToken = () => document.querySelector('meta[name="csrf-token"]')?.content ?? '';

export class ApiError extends Error {
  constructor(status, data) {
    super(data?.detail ?? `HTTP ${status}`);
    this.status = status;
    this.code = data?.code ?? 'http_error';
    this.data = data;
  }
}

export async function api(method, path, body) {
  const headers = { Accept: 'application/json', 'X-CSRFToken': csrfToken() };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(`/api${path}`, {
    method, headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = response.status === 204 ? null : await response.json().catch(() => null);
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

// A DOM element: el('li', {class: 'x', onclick: f}, 'text', child, ...)
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on')) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? '' : value);
  }
  node.append(...children.filter((child) => child !== null && child !== undefined));
  return node;
}

// Put `nodes` in `container` unless it already shows the same: a redraw that changed nothing
// keeps the elements the player may be clicking (a replaced element loses the click). The kept
// elements keep their own handlers, so a caller whose handlers depend on more than the markup
// listens on the container instead.
const HIT_AREAS = /<rect class="hit"[^>]*><\/rect>/g; // added once drawn (boards/targets.js): not the board's content

export function replaceIfChanged(container, ...nodes) {
  const now = [...container.children].map((node) => node.outerHTML.replace(HIT_AREAS, '')).join('');
  if (now === nodes.map((node) => node.outerHTML).join('') && container.children.length === nodes.length) return false;
  container.replaceChildren(...nodes);
  return true;
}

export function showProblem(node, error) {
  node.textContent = error instanceof ApiError ? `${error.message} (${error.code})` : String(error);
  node.hidden = false;
}

export const TIME_IS_UP = _('time is up');
// A clock's units as the reader abbreviates them (days, hours, minutes, seconds: d h m s, d u m s).
const CLOCK_UNITS = [[pgettext('clock: days', 'd'), 86400], [pgettext('clock: hours', 'h'), 3600],
  [pgettext('clock: minutes', 'm'), 60], [pgettext('clock: seconds', 's'), 1]];

export function whenText(iso) {
  if (!iso) return '';
  const seconds = Math.round((new Date(iso) - Date.now()) / 1000);
  if (seconds <= 0) return TIME_IS_UP;
  // The largest unit left and always the one below it ("3d 0h", never "3d"), so a clock reads the
  // same way in its first second as in the next.
  const first = CLOCK_UNITS.findIndex(([, size]) => seconds >= size);
  return CLOCK_UNITS.slice(first, first + 2).map(([unit, size], index) => {
    const whole = index === 0 ? seconds : seconds % CLOCK_UNITS[first][1];
    return `${Math.floor(whole / size)}${unit}`;
  }).join(' ');
}
