// The fallback board: every coordinate pair the legal moves or the view mention, on a grid.
import { svg, text, cell } from './svg.js';
import { _ } from '../i18n.js';

function pairs(value, found) {
  if (Array.isArray(value)) {
    if (value.length === 2 && value.every(Number.isInteger)) found.add(value.join(','));
    else value.forEach((item) => pairs(item, found));
  } else if (value && typeof value === 'object') Object.values(value).forEach((item) => pairs(item, found));
  return found;
}

export default function draw(view, { moves }) {
  const found = pairs(moves, pairs(view, new Set()));
  const points = [...found].map((token) => token.split(',').map(Number));
  if (!points.length) return null;
  const xs = points.map(([a]) => a);
  const ys = points.map(([, b]) => b);
  const [minX, minY] = [Math.min(...xs), Math.min(...ys)];
  const size = 40;
  const width = (Math.max(...xs) - minX + 1) * size;
  const height = (Math.max(...ys) - minY + 1) * size;
  const root = svg('svg', { viewBox: `0 0 ${height} ${width}`, class: 'board-svg', role: 'group', 'aria-label': _('board') });
  for (const [a, b] of points) {
    const x = (b - minY) * size;
    const y = (a - minX) * size;
    root.append(cell(`${a},${b}`, `${a},${b}`, '',
      svg('rect', { x: x + 1, y: y + 1, width: size - 2, height: size - 2, rx: 4 }),
      text(x + size / 2, y + size / 2, `${a},${b}`, { class: 'coord' })));
  }
  return root;
}
export const legend = [["a,b", _("a square, named as the moves name it")]];
