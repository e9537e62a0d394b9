// Terrafex: a 7 x 8 board of squares ("row,col"); each square holds one piece, drawn as a
// square sized by the piece, coloured by kind and labelled with its letter and size (forest g,
// mountain y, fire r, glacier b), so colour is never the only signal. A frosted forest shows its
// frost inside, a glacier the forest it caps; a scoring piece is ringed by the band of its
// owner (white or black outline, +W or +B), as the view's `bands` say.
import { svg, text, cell } from './svg.js';

const ROWS = 7;
const COLS = 8;
const CELL = 56;
const INSET = { L: 3, M: 12, S: 20 };
const LETTER = { green: 'g', yellow: 'y', red: 'r', blue: 'b' };
const INNER = { frost: 'blue', capped_forest: 'green' };

export default function draw(view, { seat }) {
  const root = svg('svg', { viewBox: `0 0 ${COLS * CELL} ${ROWS * CELL}`, class: 'board-svg terrafex', role: 'group', 'aria-label': 'Terrafex board' });
  const pieces = new Map(view.board.map((piece) => [`${piece.row},${piece.col}`, piece]));
  for (let row = 0; row < ROWS; row += 1) {
    for (let col = 0; col < COLS; col += 1) {
      const key = `${row},${col}`;
      const piece = pieces.get(key);
      const x = col * CELL;
      const y = row * CELL;
      const parts = piece ? pieceParts(piece, view.bands[(row + col) % 2 ? 'odd' : 'even'], x, y) : { name: '', shapes: [] };
      root.append(cell(key, `row ${row}, column ${col}${parts.name ? `: ${parts.name}` : ''}`, parts.name,
        svg('rect', { x: x + 1, y: y + 1, width: CELL - 2, height: CELL - 2, class: 'square' }),
        ...parts.shapes,
        parts.name ? text(x + CELL / 2, y + CELL - 8, parts.name, { class: 'coord' }) : null));
    }
  }
  const you = seat === view.white ? 'White' : seat === view.black ? 'Black' : null;
  root.append(svg('title', {}, `Scores: White ${view.scores[view.white]}, Black ${view.scores[view.black]}${you ? `; you are ${you}` : ''}`));
  return root;
}

function square(x, y, size, attributes) {
  const inset = INSET[size];
  return svg('rect', { x: x + inset, y: y + inset, width: CELL - 2 * inset, height: CELL - 2 * inset, rx: 3, ...attributes });
}

// The piece's shapes and its name as the text board writes it ("gL/bS+W").
function pieceParts(piece, bands, x, y) {
  const innerKind = Object.keys(INNER).find((kind) => piece[kind]);
  const inner = innerKind ? { colour: INNER[innerKind], size: piece[innerKind] } : null;
  const band = piece.colour === 'blue' ? null : bands[piece.size][0].toUpperCase();
  const name = `${LETTER[piece.colour]}${piece.size}${inner ? `/${LETTER[inner.colour]}${inner.size}` : ''}${band ? `+${band}` : ''}`;
  const shapes = [square(x, y, piece.size, { class: `piece ${piece.colour}${band ? ` band-${band}` : ''}` })];
  if (inner) shapes.push(square(x, y, inner.size, { class: `piece ${inner.colour}` }));
  return { name, shapes };
}
