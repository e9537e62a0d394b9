// Space Junkyard: the square map of tiles (a cell is "x,y", column then row, as the view places
// ships), each ship where it is, and the push entries round the edge ("N1" … "W6") as targets.
import { svg, text, cell } from './svg.js';

const CELL = 52;
const MARKS = ['●', '▲', '■', '◆']; // a shape per ship, so colour is never the only signal
const MARGIN = 26;
const SIDES = {
  N: (line, size) => [MARGIN + (line - 0.5) * CELL, MARGIN / 2],
  S: (line, size) => [MARGIN + (line - 0.5) * CELL, MARGIN * 1.5 + size * CELL],
  W: (line) => [MARGIN / 2, MARGIN + (line - 0.5) * CELL],
  E: (line, size) => [MARGIN * 1.5 + size * CELL, MARGIN + (line - 0.5) * CELL],
};

export default function draw(view, { seat }) {
  const size = view.size;
  const span = size * CELL + 2 * MARGIN;
  const root = svg('svg', { viewBox: `0 0 ${span} ${span}`, class: 'board-svg space-junkyard', role: 'group', 'aria-label': 'Space Junkyard map' });
  const shipsAt = new Map();
  view.ships.forEach((ship, index) => {
    if (ship.out || !ship.at) return;
    const key = ship.at.join(',');
    shipsAt.set(key, [...(shipsAt.get(key) ?? []), index]);
  });
  for (let row = 0; row < size; row += 1) {
    for (let col = 0; col < size; col += 1) {
      const key = `${col},${row}`;
      const tile = view.map[row][col];
      const ships = shipsAt.get(key) ?? [];
      const x = MARGIN + col * CELL;
      const y = MARGIN + row * CELL;
      const label = `row ${row + 1}, column ${col + 1}: ${tile ?? 'empty space'}${ships.length ? `, ship ${ships.join(' and ')}` : ''}`;
      root.append(cell(key, label, `${tile ?? ''}@${ships.join(',')}`,
        svg('rect', { x: x + 1, y: y + 1, width: CELL - 2, height: CELL - 2, rx: 3, class: tile ? (tile.startsWith('A') ? 'asteroid' : 'section') : 'space' }),
        tile ? text(x + CELL / 2, y + 14, tile, { class: 'coord' }) : null,
        ships.length ? text(x + CELL / 2, y + CELL / 2 + 6, ships.map((s) => `${MARKS[s]}${s}${s === seat ? '*' : ''}`).join(' '), { class: `token seat-${ships[0]}` }) : null));
    }
  }
  const closed = new Set(view.closed_entries ?? []);
  for (const [side, place] of Object.entries(SIDES)) {
    for (let line = 1; line <= size; line += 1) {
      const entry = `${side}${line}`;
      const [cx, cy] = place(line, size);
      root.append(cell(entry, `entry ${entry}${closed.has(entry) ? ' (closed)' : ''}`, closed.has(entry) ? 'closed' : 'open',
        svg('rect', { x: cx - 11, y: cy - 11, width: 22, height: 22, rx: 11, class: closed.has(entry) ? 'entry closed' : 'entry' }),
        text(cx, cy, entry, { class: 'coord' })));
    }
  }
  return root;
}
