// Terrafex: a 7 x 8 board of squares ("row,col"); each square holds a stack of pieces drawn as
// nested squares, large outside, small inside, coloured by kind, ringed by the band of its owner
// (a white or black outline) and labelled with its letter, size and band (forest g, mountain y,
// fire r, glacier b; +W or +B), so colour is never the only signal.
import { svg, text, cell } from './svg.js';

const ROWS = 7;
const COLS = 8;
const CELL = 56;
const INSET = { L: 3, M: 12, S: 20 };
const LETTER = { green: 'g', yellow: 'y', red: 'r', blue: 'b' };

// Whose band rings a piece of this size on this square (W or B): on squares whose row + column
// is even the small and large bands are White's and the medium Black's; odd squares the reverse.
function band(row, col, size) {
  const whiteOnEven = size !== 'M';
  return ((row + col) % 2 === 0) === whiteOnEven ? 'W' : 'B';
}

export default function draw(view, { seat }) {
  const root = svg('svg', { viewBox: `0 0 ${COLS * CELL} ${ROWS * CELL}`, class: 'board-svg terrafex', role: 'group', 'aria-label': 'Terrafex board' });
  const stacks = new Map();
  for (const piece of view.board) {
    const key = `${piece.row},${piece.col}`;
    stacks.set(key, [...(stacks.get(key) ?? []), piece]);
  }
  for (let row = 0; row < ROWS; row += 1) {
    for (let col = 0; col < COLS; col += 1) {
      const key = `${row},${col}`;
      const pieces = (stacks.get(key) ?? []).slice().sort((a, b) => INSET[a.size] - INSET[b.size]);
      const names = pieces.map((p) => `${LETTER[p.colour]}${p.size}+${band(row, col, p.size)}`);
      const x = col * CELL;
      const y = row * CELL;
      root.append(cell(key, `row ${row}, column ${col}${names.length ? `: ${names.join(' ')}` : ''}`, names.join(' '),
        svg('rect', { x: x + 1, y: y + 1, width: CELL - 2, height: CELL - 2, class: 'square' }),
        ...pieces.map((piece) => svg('rect', {
          x: x + INSET[piece.size], y: y + INSET[piece.size], width: CELL - 2 * INSET[piece.size], height: CELL - 2 * INSET[piece.size],
          rx: 3, class: `piece ${piece.colour} band-${band(row, col, piece.size)}`,
        })),
        names.length ? text(x + CELL / 2, y + CELL - 8, names.join('/'), { class: 'coord' }) : null));
    }
  }
  const you = seat === view.white ? 'White' : seat === view.black ? 'Black' : null;
  root.append(svg('title', {}, `Scores: White ${view.scores[view.white]}, Black ${view.scores[view.black]}${you ? `; you are ${you}` : ''}`));
  return root;
}
