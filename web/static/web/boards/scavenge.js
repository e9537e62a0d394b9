// Scavenge: a 10x10 junkyard (squares "row,col"), its four middle squares one hole (the
// "centre"), each player's start point and token with its stack of trash, and the good stuff:
// in the centre, or carried.
import { svg, text, cell } from './svg.js';

const SIZE = 10;
const HOLE = [4, 5];
const CELL = 36;
const MARKS = ['●', '▲', '■', '◆']; // a shape per seat, so colour is never the only signal

export default function draw(view, { seat }) {
  const root = svg('svg', { viewBox: `0 0 ${SIZE * CELL} ${SIZE * CELL}`, class: 'board-svg', role: 'group', 'aria-label': 'Scavenge board' });
  const place = (at) => (Array.isArray(at) ? at.join(',') : String(at)); // a square, or "centre"
  const tokenAt = new Map(view.seats.filter((s) => s.at).map((s) => [place(s.at), s]));
  const startAt = new Map(view.seats.filter((s) => s.start).map((s) => [place(s.start), s]));
  const carrier = view.seats.find((s) => view.good_stuff?.carried_by === s.seat);
  for (let row = 0; row < SIZE; row += 1) {
    for (let col = 0; col < SIZE; col += 1) {
      if (HOLE.includes(row) && HOLE.includes(col)) continue;
      const key = `${row},${col}`;
      const token = tokenAt.get(key);
      const start = startAt.get(key);
      const x = col * CELL;
      const y = row * CELL;
      const label = `row ${row}, column ${col}${token ? `: player ${token.seat}${token.seat === seat ? ' (you)' : ''}, trash ${token.trash}` : ''}${start ? `, start of ${start.seat}` : ''}`;
      root.append(cell(key, label, token ? `p${token.seat}t${token.trash}` : '',
        svg('rect', { x: x + 1, y: y + 1, width: CELL - 2, height: CELL - 2, rx: 3, class: start ? `start seat-${start.seat}` : 'square' }),
        token ? text(x + CELL / 2, y + CELL / 2, MARKS[token.seat] + (token === carrier ? '*' : ''), { class: `token seat-${token.seat}` }) : null,
        token ? trashStack(x, y, token.trash) : null));
    }
  }
  const centre = HOLE[0] * CELL;
  const side = HOLE.length * CELL;
  const inCentre = view.good_stuff === 'centre';
  const there = tokenAt.get('centre');
  const mark = there ? `${MARKS[there.seat]}${there === carrier ? '*' : ''}` : inCentre ? 'G' : '';
  const label = there ? `the centre: player ${there.seat}${there === carrier ? ' with the good stuff' : ''}` : inCentre ? 'the centre, with the good stuff' : 'the empty centre';
  root.append(cell('centre', label, there ? `p${there.seat}` : inCentre ? 'stuff' : 'empty',
    svg('rect', { x: centre + 2, y: centre + 2, width: side - 4, height: side - 4, rx: 8, class: 'centre' }),
    text(centre + side / 2, centre + side / 2, mark, { class: there ? `token seat-${there.seat}` : 'stuff' })));
  return root;
}

// The token's trash: one small bar a piece, stacked in the square's corner, and its count.
function trashStack(x, y, pieces) {
  const bars = Array.from({ length: pieces }, (_, i) => svg('rect', { x: x + CELL - 9, y: y + CELL - 6 - i * 4, width: 6, height: 3, class: 'trash' }));
  return svg('g', { class: 'trash-stack' }, ...bars, pieces ? text(x + 7, y + CELL - 7, pieces, { class: 'coord' }) : null);
}
