// Terrafex: a 7 x 8 board of squares ("row,col", as on its edges); each square holds one piece,
// drawn as an Icehouse pyramid seen from above: a square base with four sloping faces meeting
// at the tip, its size by the piece (small, medium, large; 1, 2, 3 pips on the base) and its
// colour by kind (forest green, mountain yellow, fire red, glacier blue). A frosted forest shows
// its frost as a smaller pyramid on top, a glacier the forest it caps. The square a scoring piece
// stands on is drawn in the colour of the player it scores for (white or black, as the view's
// `bands` say): what scoring depends on is seen, not read. Below the board: the pieces left to
// take and the fires already used, by colour and size. Every square names itself in words.
import { svg, text, cell, edgeLabels } from './svg.js';
import { _ } from '../i18n.js';

const ROWS = 7;
const COLS = 8;
const CELL = 56;
const EDGE = 18;
const SIDE = { L: 40, M: 30, S: 20 };
const PIPS = { S: 1, M: 2, L: 3 };
const KIND = { green: _('forest'), yellow: _('mountain'), red: _('fire'), blue: _('glacier') };
const KINDS = { green: _('forests'), yellow: _('mountains'), red: _('fires'), blue: _('glaciers') };
const INNER = { frost: 'blue', capped_forest: 'green' };
const SIZE_WORD = { S: _('small'), M: _('medium'), L: _('large') };
const STASH_ROW = 44;
const STASH_TOP = ROWS * CELL + 14;
// The fires used get a title line of their own above their row (FIRE_TITLE), not a label beside
// it: a label's width depends on the language ("Fires used" is half "Gebruikte branden").
const FIRE_TITLE = 16;
const STASH_HEIGHT = 3 * STASH_ROW + 26 + FIRE_TITLE;

const mini = (colour, size) => () => svg('svg', { viewBox: `0 0 ${CELL} ${CELL}`, width: 26, height: 26, class: 'legend-board legend-pic', 'aria-hidden': 'true' }, pyramid(0, 6, size, colour));
const square = (owner) => () => svg('svg', { viewBox: '0 0 20 20', width: 22, height: 22, class: 'legend-pic', 'aria-hidden': 'true' },
  svg('rect', { x: 1, y: 1, width: 18, height: 18, class: `square owner-${owner}`, stroke: '#1d1d1b' }));

export const legend = [
  [mini('green', 'M'), _('forest: scores its size for the player whose colour its square is')],
  [mini('yellow', 'M'), _('mountain: scores its size likewise')],
  [mini('red', 'M'), _('fire: costs its size to the player whose colour its square is')],
  [mini('blue', 'M'), _('glacier; the game ends when none is left')],
  [mini('green', 'S'), _('small, medium, large: the pyramid’s size, and 1, 2, 3 pips')],
  [square('white'), _('a square scoring for White')],
  [square('black'), _('a square scoring for Black')],
  [_('row,col'), _('squares are named row then column, as on the edges')],
];

export default function draw(view, { seat }) {
  const root = svg('svg', { viewBox: `${-EDGE} ${-EDGE} ${COLS * CELL + EDGE} ${ROWS * CELL + EDGE + STASH_HEIGHT}`, class: 'board-svg terrafex', role: 'group', 'aria-label': _('Terrafex board') });
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
      const parts = piece ? pieceParts(piece, view.bands[(row + col) % 2 ? 'odd' : 'even'], x, y) : { state: '', words: '', owner: null, shapes: [] };
      const ground = parts.owner ? `owner-${parts.owner}` : `plain ${(row + col) % 2 ? 'odd' : 'even'}`;
      root.append(cell(key, `${key}: ${parts.words || _('empty')}`, parts.state,
        svg('rect', { x: x + 1, y: y + 1, width: CELL - 2, height: CELL - 2, class: `square ${ground}` }),
        ...parts.shapes));
    }
  }
  root.append(stash(view));
  const you = seat === view.white ? _('White') : seat === view.black ? _('Black') : null;
  root.append(svg('title', {}, `${_('Scores: White %(white)s, Black %(black)s', { white: view.scores[view.white], black: view.scores[view.black] })}${you ? `; ${_('you are %(colour)s', { colour: you })}` : ''}`));
  return root;
}

// The pieces left to take (by colour and size) and the fires used, beside the board (below it,
// so that a phone keeps the squares a finger's width).
function stash(view) {
  const group = svg('g', { class: 'stash', role: 'img', 'aria-label': stashWords(view) });
  const rows = [
    ['left', ['green', 'yellow'].flatMap((colour) => ['S', 'M', 'L'].map((size) => [colour, size, view.pool?.[colour]?.[size] ?? 0]))],
    ['', ['red', 'blue'].flatMap((colour) => ['S', 'M', 'L'].map((size) => [colour, size, view.pool?.[colour]?.[size] ?? 0]))],
    ['fire_pit', ['S', 'M', 'L'].map((size) => ['red', size, view.fire_pit?.[size] ?? 0])],
  ];
  group.append(text(0, STASH_TOP + 2, _('Pieces left to take'), { class: 'stash-title', 'text-anchor': 'start' }));
  rows.forEach(([title, entries], index) => {
    const y = STASH_TOP + 10 + index * STASH_ROW + (title === 'fire_pit' ? FIRE_TITLE : 0);
    if (title === 'fire_pit') group.append(text(0, y - 4, _('Fires used'), { class: 'stash-title', 'text-anchor': 'start' }));
    entries.forEach(([colour, size, count], column) => {
      const x = column * 75;
      group.append(svg('g', { class: `stash-entry${count ? '' : ' none-left'}`, transform: `translate(${x} ${y}) scale(0.75)` }, pyramid(0, 0, size, colour)),
        text(x + 52, y + STASH_ROW / 2, `×${count}`, { class: 'stash-count', 'text-anchor': 'start' }));
    });
  });
  return group;
}

function stashWords(view) {
  const told = (counts) => ['S', 'M', 'L'].map((size) => `${counts?.[size] ?? 0} ${SIZE_WORD[size]}`).join(', ');
  const left = Object.keys(KIND).map((colour) => `${KINDS[colour]} ${told(view.pool?.[colour])}`).join('; ');
  return _('Pieces left to take: %(left)s. Fires used: %(used)s.', { left, used: told(view.fire_pit) });
}

// A pyramid seen from above: its base, four faces shaded as if lit from the top left, and its pips.
function pyramid(x, y, size, colour, extra = '') {
  const [mx, my] = [x + CELL / 2, y + CELL / 2];
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

// The piece's shapes, the player it scores for (its square's colour), and the piece in words.
function pieceParts(piece, bands, x, y) {
  const innerKind = Object.keys(INNER).find((kind) => piece[kind]);
  const inner = innerKind ? { colour: INNER[innerKind], size: piece[innerKind] } : null;
  const owner = piece.colour === 'blue' ? null : bands[piece.size];
  const state = `${piece.colour}${piece.size}${inner ? `/${inner.colour}${inner.size}` : ''}${owner ? `+${owner}` : ''}`;
  const under = inner ? ` ${innerKind === 'frost' ? _('with a %(size)s frost', { size: SIZE_WORD[inner.size] }) : _('with a %(size)s forest capped', { size: SIZE_WORD[inner.size] })}` : '';
  const words = `${SIZE_WORD[piece.size]} ${KIND[piece.colour]}${under}${owner ? `, ${owner === 'white' ? _('for White') : _('for Black')}` : ''}`;
  const shapes = [pyramid(x, y, piece.size, piece.colour)];
  if (inner) shapes.push(pyramid(x, y, inner.size, inner.colour));
  return { state, words, owner, shapes };
}
