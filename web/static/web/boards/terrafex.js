// Terrafex: a 7 x 8 board of squares ("row,col", as on its edges); each square holds one piece,
// drawn as an Icehouse pyramid seen from above: a square base with four sloping faces meeting
// at the tip, its size by the piece (small, medium, large) and its pips (1, 2, 3) on the base,
// coloured by kind and labelled with its letter and size (forest g, mountain y, fire r, glacier
// b), so colour is never the only signal. A frosted forest shows its frost as a smaller pyramid
// on top, a glacier the forest it caps; a scoring piece's base is ringed by the band of its
// owner (white or black outline, +W or +B), as the view's `bands` say.
import { svg, text, cell, edgeLabels } from './svg.js';

const ROWS = 7;
const COLS = 8;
const CELL = 56;
const EDGE = 18;
const SIDE = { L: 40, M: 30, S: 20 }; // a pyramid's base, drawn above the square's label
const PIPS = { S: 1, M: 2, L: 3 };
const LETTER = { green: 'g', yellow: 'y', red: 'r', blue: 'b' };
const KIND = { green: 'forest', yellow: 'mountain', red: 'fire', blue: 'glacier' };
const INNER = { frost: 'blue', capped_forest: 'green' };

export const legend = [
  ['green pyramid (g)', 'forest: scores its size for the band round it'],
  ['yellow pyramid (y)', 'mountain: scores its size for the band round it'],
  ['red pyramid (r)', 'fire: costs its size to the band round it'],
  ['blue pyramid (b)', 'glacier; the game ends when none is left'],
  ['S M L, 1-3 pips', 'the size of a pyramid, drawn from above'],
  ['white / black ring, +W / +B', "the piece scores for White's / Black's band"],
  ['gL/bS', 'a forest with a frost on it; bL/gM a glacier capping a forest'],
  ['row,col', 'squares are named row then column, as on the edges'],
];

export default function draw(view, { seat }) {
  const root = svg('svg', { viewBox: `${-EDGE} ${-EDGE} ${COLS * CELL + EDGE} ${ROWS * CELL + EDGE}`, class: 'board-svg terrafex', role: 'group', 'aria-label': 'Terrafex board' });
  root.append(edgeLabels([
    ...Array.from({ length: ROWS }, (_, row) => [-EDGE / 2, row * CELL + CELL / 2, row]),
    ...Array.from({ length: COLS }, (_, col) => [col * CELL + CELL / 2, -EDGE / 2, col]),
  ]));
  const pieces = new Map(view.board.map((piece) => [`${piece.row},${piece.col}`, piece]));
  for (let row = 0; row < ROWS; row += 1) {
    for (let col = 0; col < COLS; col += 1) {
      const key = `${row},${col}`;
      const piece = pieces.get(key);
      const x = col * CELL;
      const y = row * CELL;
      const parts = piece ? pieceParts(piece, view.bands[(row + col) % 2 ? 'odd' : 'even'], x, y) : { name: '', words: '', shapes: [] };
      root.append(cell(key, `${key}${parts.words ? `: ${parts.words}` : ': empty'}`, parts.name,
        svg('rect', { x: x + 1, y: y + 1, width: CELL - 2, height: CELL - 2, class: 'square' }),
        ...parts.shapes,
        parts.name ? text(x + CELL / 2, y + CELL - 6, parts.name, { class: 'coord piece-name' }) : null));
    }
  }
  const you = seat === view.white ? 'White' : seat === view.black ? 'Black' : null;
  root.append(svg('title', {}, `Scores: White ${view.scores[view.white]}, Black ${view.scores[view.black]}${you ? `; you are ${you}` : ''}`));
  return root;
}

// A pyramid seen from above: its base, four faces shaded as if lit from the top left, and its pips.
function pyramid(x, y, size, colour, extra = '') {
  const [mx, my] = [x + CELL / 2, y + (CELL - 12) / 2 + 2];
  const half = SIDE[size] / 2;
  const [left, top, right, bottom] = [mx - half, my - half, mx + half, my + half];
  const [cx, cy] = [(left + right) / 2, (top + bottom) / 2];
  const face = (points, shade) => svg('polygon', { points: points.map((p) => p.join(',')).join(' '), class: `face ${shade}` });
  const pips = Array.from({ length: PIPS[size] }, (_, i) => svg('circle', {
    cx: cx + (i - (PIPS[size] - 1) / 2) * 5, cy: bottom - 3.5, r: 1.6, class: 'pip' }));
  return svg('g', { class: `pyramid ${colour} size-${size}` },
    svg('rect', { x: left, y: top, width: right - left, height: bottom - top, class: `piece ${colour}${extra}` }),
    face([[left, top], [right, top], [cx, cy]], 'light'),
    face([[left, top], [left, bottom], [cx, cy]], 'lit'),
    face([[right, top], [right, bottom], [cx, cy]], 'shaded'),
    face([[left, bottom], [right, bottom], [cx, cy]], 'dark'),
    ...pips);
}

// The piece's shapes, its name as the text board writes it ("gL/bS+W") and in words.
function pieceParts(piece, bands, x, y) {
  const innerKind = Object.keys(INNER).find((kind) => piece[kind]);
  const inner = innerKind ? { colour: INNER[innerKind], size: piece[innerKind] } : null;
  const band = piece.colour === 'blue' ? null : bands[piece.size][0].toUpperCase();
  const name = `${LETTER[piece.colour]}${piece.size}${inner ? `/${LETTER[inner.colour]}${inner.size}` : ''}${band ? `+${band}` : ''}`;
  const words = `${{ S: 'small', M: 'medium', L: 'large' }[piece.size]} ${KIND[piece.colour]}${inner ? ` with a ${{ S: 'small', M: 'medium', L: 'large' }[inner.size]} ${innerKind === 'frost' ? 'frost' : 'forest capped'}` : ''}${band ? `, for ${band === 'W' ? 'White' : 'Black'}` : ''}`;
  const shapes = [pyramid(x, y, piece.size, piece.colour, band ? ` band-${band}` : '')];
  if (inner) shapes.push(pyramid(x, y, inner.size, inner.colour));
  return { name, words, shapes };
}
