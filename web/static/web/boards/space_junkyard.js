// Space Junkyard: the square map of tiles with their printed faces, each ship where it is, the
// push entries round the edge ("N1" … "W6") and the corners ("NW" …) as targets; under the map,
// every ship's sections on a grid of its own, turned as joined, with its stores and score.
// The caller's own ship takes clicks at its places ("x,y", as the moves name them) and, on the
// map, at the step directions its moves list; the faces come from the view's `faces`, keyed by
// tile id.
import { svg, text, cell } from './svg.js';
import { _ } from '../i18n.js';

// Sizes in the drawing's units. A phone (390 px) draws the map at about 0.73 px a unit, where a
// finger needs 44 px: the margin's push entries and a ship's places are 60 units and more.
const CELL = 64;
const MARGIN = 60;
const SHIP_PANEL = 210; // width of one ship's panel under the map: two side by side under a 6x6 map
const SHIP_CELL = 62;
const MARKS = ['●', '▲', '■', '◆']; // a shape per ship, so colour is never the only signal
const SIDES = ['N', 'E', 'S', 'W'];
const ENTRY_AT = {
  N: (line, size) => [MARGIN + (line - 0.5) * CELL, MARGIN / 2],
  S: (line, size) => [MARGIN + (line - 0.5) * CELL, MARGIN * 1.5 + size * CELL],
  W: (line) => [MARGIN / 2, MARGIN + (line - 0.5) * CELL],
  E: (line, size) => [MARGIN * 1.5 + size * CELL, MARGIN + (line - 0.5) * CELL],
};
const CORNER_AT = { NW: [0, 0], NE: [1, 0], SE: [1, 1], SW: [0, 1] };
const RESOURCE_NAMES = { Y: _('radioactive'), B: _('carbon'), R: _('metal') };

// A section's edges N, E, S, W after turning it `rotation` degrees clockwise.
function turned(edges, rotation) {
  const steps = (rotation / 90) % 4;
  return SIDES.map((_, side) => edges[(side - steps + 4) % 4]);
}

// A resource as an icon, its shape and colour both telling it: radioactive a yellow triangle,
// carbon a blue disc, metal a red square.
function resourceIcon(letter, cx, cy, r) {
  const shape = letter === 'Y'
    ? svg('polygon', { points: `${cx},${cy - r * 1.15} ${cx + r * 1.1},${cy + r * 0.8} ${cx - r * 1.1},${cy + r * 0.8}` })
    : letter === 'R' ? svg('rect', { x: cx - r * 0.9, y: cy - r * 0.9, width: r * 1.8, height: r * 1.8 })
      : svg('circle', { cx, cy, r });
  return svg('g', { class: `resource res-${letter}` }, shape);
}

function resourceRow(bagText, cx, cy, r) {
  const letters = [...bagText];
  const step = r * 2.4;
  const left = cx - ((letters.length - 1) * step) / 2;
  return letters.map((letter, i) => resourceIcon(letter, left + i * step, cy, r));
}

// A tile's pictures keep to zones of their own, so none lies over another at any size: the
// corridor costs in a band along each edge (N and S as a row, E and W as a column), the points
// star in the top right corner, the ships in the bottom corners, and what the section does in
// the middle, one line each (at most three): makes (a plus), stores (an open crate), converts
// (one resource, an arrow, another) and recycles (two turning arrows), each with its resources.
const LINES_AT = [0.34, 0.5, 0.66];
const LINE_RADIUS = 0.055;
const ICON_AT = 0.26;
const ROW_FROM = 0.36;
const ROW_TO = 0.82;

function abilityLines(face, x, y, size) {
  const r = size * LINE_RADIUS;
  const lines = [];
  if (face.produce) lines.push(['make', face.produce]);
  if (face.store) lines.push(['store', face.store]);
  if (face.convert) lines.push(['convert', face.convert]);
  if (face.recycle) lines.push(['recycle', face.recycle]);
  const parts = [];
  lines.slice(0, LINES_AT.length).forEach(([kind, what], index) => {
    const cy = y + size * LINES_AT[index];
    const iconX = x + size * ICON_AT;
    if (kind === 'make') parts.push(svg('path', { d: `M${iconX - r * 1.2} ${cy} h${r * 2.4} M${iconX} ${cy - r * 1.2} v${r * 2.4}`, class: 'ability-icon make' }));
    if (kind === 'store') parts.push(svg('path', { d: `M${iconX - r * 1.3} ${cy - r * 1.1} v${r * 2.2} h${r * 2.6} v${-r * 2.2}`, class: 'ability-icon store' }));
    if (kind === 'recycle') {
      parts.push(svg('path', { d: `M${iconX - r * 1.2} ${cy} a${r * 1.2} ${r * 1.2} 0 0 1 ${r * 2.1} ${-r * 0.6} M${iconX + r * 1.2} ${cy} a${r * 1.2} ${r * 1.2} 0 0 1 ${-r * 2.1} ${r * 0.6}`, class: 'ability-icon recycle' }));
    }
    if (kind === 'convert') {
      parts.push(resourceIcon(what[0], iconX, cy, r), svg('path', { d: `M${iconX + r * 1.6} ${cy} h${r * 2.2} m${-r} ${-r * 0.8} l${r} ${r * 0.8} l${-r} ${r * 0.8}`, class: 'ability-icon convert' }),
        resourceIcon(what[1], iconX + r * 5.2, cy, r));
      return;
    }
    // The resources after the icon, as many as fit before the E band (smaller where there are many).
    const fit = Math.min(r, (size * (ROW_TO - ROW_FROM)) / (what.length * 2.4));
    const step = fit * 2.4;
    const first = x + size * ROW_FROM + fit * 1.2;
    parts.push(...[...what].map((letter, i) => resourceIcon(letter, first + i * step, cy, fit)));
  });
  return parts;
}

// A corridor's cost in the band along its edge: a row on N and S, a column on E and W.
function corridorCost(cost, side, mx, my, r) {
  const along = r * 2.4;
  const start = -((cost.length - 1) * along) / 2;
  return [...cost].map((letter, i) => (side % 2 === 0
    ? resourceIcon(letter, mx + start + i * along, my, r)
    : resourceIcon(letter, mx, my + start + i * along, r)));
}

// A section's points: a star with the number in it (none for no points).
function pointsStar(points, cx, cy, r) {
  if (!points) return [];
  const corners = Array.from({ length: 10 }, (_, i) => {
    const angle = (Math.PI / 5) * i - Math.PI / 2;
    const radius = i % 2 ? r * 0.5 : r;
    return `${(cx + radius * Math.cos(angle)).toFixed(1)},${(cy + radius * Math.sin(angle)).toFixed(1)}`;
  });
  return [svg('polygon', { points: corners.join(' '), class: 'points-star' }), text(cx, cy + r * 0.12, points, { class: 'points-number', 'font-size': r * 1.05 })];
}

function faceWords(id, face) {
  if (!face) return id;
  if (face.kind === 'asteroid') return _('asteroid %(id)s of %(what)s', { id, what: [...face.resources].map((r) => RESOURCE_NAMES[r]).join(', ') });
  const sides = face.edges.map((edge, i) => `${SIDES[i]} ${edge === null ? _('closed') : edge === '' ? _('open') : _('open for %(what)s', { what: edge })}`);
  const does = [face.produce && _('produces %(what)s', { what: face.produce }), face.store && _('stores %(what)s', { what: face.store }),
    face.convert && _('converts %(what)s', { what: face.convert.join(' → ') }), face.recycle && _('recycles for %(what)s', { what: face.recycle })].filter(Boolean);
  return `${face.kind === 'asteroid' ? _('asteroid') : _('section')} ${id}: ${[...does, _('%(count)s points', { count: face.points }), ...sides].join(', ')}`;
}

// One tile drawn in the square (x, y, size): an asteroid's resources, or a section's walls and
// corridors (a gap in the wall, with what joining there costs as resource icons), what it does
// as icons and its points in a star. No catalogue numbers: the cell's words name the tile.
function tileFace(id, face, x, y, size, rotation = 0) {
  const parts = [svg('rect', { x: x + 1, y: y + 1, width: size - 2, height: size - 2, rx: 3, class: face ? face.kind : 'space' })];
  if (!face) return parts;
  if (face.kind === 'asteroid') {
    parts.push(svg('circle', { cx: x + size / 2, cy: y + size / 2, r: size * 0.36, class: 'rock' }));
    parts.push(...resourceRow(face.resources, x + size / 2, y + size / 2, size * 0.1));
    return parts;
  }
  const corners = [[x, y], [x + size, y], [x + size, y + size], [x, y + size], [x, y]];
  turned(face.edges, rotation).forEach((edge, side) => {
    const [x1, y1] = corners[side];
    const [x2, y2] = corners[side + 1];
    if (edge === null) {
      parts.push(svg('line', { x1, y1, x2, y2, class: 'wall' }));
      return;
    }
    const inward = [[0, 1], [-1, 0], [0, -1], [1, 0]][side];
    const mx = (x1 + x2) / 2 + inward[0] * size * 0.1;
    const my = (y1 + y2) / 2 + inward[1] * size * 0.1;
    const r = size * 0.045;
    parts.push(svg('line', { x1, y1, x2: x1 + (x2 - x1) * 0.3, y2: y1 + (y2 - y1) * 0.3, class: 'wall' }));
    parts.push(svg('line', { x1: x2 - (x2 - x1) * 0.3, y1: y2 - (y2 - y1) * 0.3, x2, y2, class: 'wall' }));
    if (edge) parts.push(...corridorCost(edge, side, mx, my, r));
  });
  parts.push(...pointsStar(face.points, x + size * 0.82, y + size * 0.18, size * 0.1));
  parts.push(...abilityLines(face, x, y, size));
  return parts;
}

function drawMap(root, view, seat, moves) {
  const size = view.size;
  const faces = view.faces ?? {};
  const shipsAt = new Map();
  view.ships.forEach((ship, index) => {
    if (ship.out || !ship.at) return;
    const key = ship.at.join(',');
    shipsAt.set(key, [...(shipsAt.get(key) ?? []), index]);
  });
  for (let row = 0; row < size; row += 1) {
    for (let col = 0; col < size; col += 1) {
      const tile = view.map[row][col];
      const ships = shipsAt.get(`${col},${row}`) ?? [];
      const x = MARGIN + col * CELL;
      const y = MARGIN + row * CELL;
      const label = `${_('row %(row)s, column %(col)s', { row: row + 1, col: col + 1 })}: ${tile ? faceWords(tile, faces[tile]) : _('empty space')}${ships.length ? `; ${_('ship %(ships)s', { ships: ships.join(_(' and ')) })}` : ''}`;
      root.append(cell(`map:${col},${row}`, label, `${tile ?? ''}@${ships.join(',')}`,
        ...tileFace(tile, faces[tile], x, y, CELL),
        ...ships.map((ship, i) => shipIcon(x + SHIP_SPOTS[i % 4][0], y + SHIP_SPOTS[i % 4][1], ship, ship === seat, 0.75))));
    }
  }
  const mine = seat !== null && seat !== undefined ? view.ships[seat] : null;
  const steps = new Set(moves.map((move) => move.dir).filter(Boolean));
  if (mine && mine.at && !mine.out && steps.size) drawSteps(root, mine.at, steps, size);
  drawEdge(root, view);
}

// Where ships stand on a tile: the bottom corners, then the top ones (clear of its pictures but
// the points star, which a fourth ship may cover).
const SHIP_SPOTS = [[10, CELL - 8], [CELL - 10, CELL - 8], [10, 10], [CELL - 10, 10]];

// A ship on the map: a little rocket in its player's colour with its mark (● ▲ ■ ◆); yours ringed.
function shipIcon(cx, cy, index, yours, scale = 1) {
  return svg('g', { class: `ship-icon${yours ? ' yours' : ''}`, transform: scale === 1 ? undefined : `translate(${cx} ${cy}) scale(${scale}) translate(${-cx} ${-cy})` },
    svg('path', { d: `M${cx} ${cy - 12} C${cx + 9} ${cy - 6} ${cx + 9} ${cy + 4} ${cx + 6} ${cy + 9} H${cx - 6} C${cx - 9} ${cy + 4} ${cx - 9} ${cy - 6} ${cx} ${cy - 12} Z`, class: `ship-body seat-${index}` }),
    text(cx, cy + 1, MARKS[index], { class: 'ship-mark' }));
}

// The listed step directions on the caller's ship's cell, as targets "N", "E", "S", "W": an
// arrow inside the ship's cell, and the cell it steps into, outlined, to tap. Four arrows share
// one cell, too small for four fingers on a phone; the cells stepped into are a whole cell each
// and lie inside the map, where no other target is drawn (the push entries and corners lie
// round its edge, the ships' places under it).
const STEPS = { N: [0, -1], E: [1, 0], S: [0, 1], W: [-1, 0] };

function drawSteps(root, [col, row], steps, size) {
  for (const [dir, [dx, dy]] of Object.entries(STEPS)) {
    if (!steps.has(dir)) continue;
    const [toCol, toRow] = [col + dx, row + dy];
    const onMap = toCol >= 0 && toRow >= 0 && toCol < size && toRow < size;
    // Inset, clear of the border that marks a cell the last move touched (often the one a step left).
    const into = onMap ? svg('rect', { x: MARGIN + toCol * CELL + 6, y: MARGIN + toRow * CELL + 6, width: CELL - 12, height: CELL - 12, rx: 4, class: 'step-into' }) : null;
    const label = onMap ? _('step %(dir)s, to row %(row)s, column %(col)s', { dir, row: toRow + 1, col: toCol + 1 }) : _('step %(dir)s', { dir });
    root.append(cell(dir, label, '', onMap ? null : stepArrow(col, row, dx, dy), into, onMap ? bigArrow(toCol, toRow, dx, dy) : null));
  }
}

function stepArrow(col, row, dx, dy) {
  const cx = MARGIN + (col + 0.5) * CELL;
  const cy = MARGIN + (row + 0.5) * CELL;
  const tip = [cx + dx * CELL * 0.45, cy + dy * CELL * 0.45];
  const base = [cx + dx * CELL * 0.28, cy + dy * CELL * 0.28];
  const side = [dy * CELL * 0.1, dx * CELL * 0.1];
  const points = [tip, [base[0] + side[0], base[1] + side[1]], [base[0] - side[0], base[1] - side[1]]].map((p) => p.join(',')).join(' ');
  return svg('polygon', { points, class: 'step' });
}

// A whole cell's arrow, in the cell a step goes into: as big as a fingertip on a phone.
function bigArrow(col, row, dx, dy) {
  const cx = MARGIN + (col + 0.5) * CELL;
  const cy = MARGIN + (row + 0.5) * CELL;
  const along = (a, b) => [cx + dx * a + dy * b, cy + dy * a + dx * b];
  const points = [along(CELL * 0.4, 0), along(0, CELL * 0.36), along(0, CELL * 0.14), along(-CELL * 0.4, CELL * 0.14),
    along(-CELL * 0.4, -CELL * 0.14), along(0, -CELL * 0.14), along(0, -CELL * 0.36)];
  return svg('polygon', { points: points.map((p) => p.map((n) => n.toFixed(1)).join(',')).join(' '), class: 'step big-step' });
}

function drawEdge(root, view) {
  const size = view.size;
  const closed = new Set(view.closed_entries ?? []);
  for (const [side, place] of Object.entries(ENTRY_AT)) {
    for (let line = 1; line <= size; line += 1) {
      const entry = `${side}${line}`;
      const [cx, cy] = place(line, size);
      root.append(cell(entry, closed.has(entry) ? _('entry %(entry)s (closed)', { entry }) : _('entry %(entry)s', { entry }), closed.has(entry) ? 'closed' : 'open',
        svg('rect', { x: cx - 16, y: cy - 16, width: 32, height: 32, rx: 16, class: closed.has(entry) ? 'entry closed' : 'entry' }),
        text(cx, cy, entry, { class: 'coord' })));
    }
  }
  const far = MARGIN * 2 + size * CELL;
  for (const [corner, [right, down]] of Object.entries(CORNER_AT)) {
    const cx = right ? far - MARGIN / 2 : MARGIN / 2;
    const cy = down ? far - MARGIN / 2 : MARGIN / 2;
    root.append(cell(corner, _('corner %(corner)s', { corner }), '',
      svg('rect', { x: cx - 17, y: cy - 17, width: 34, height: 34, rx: 4, class: 'entry corner' }),
      text(cx, cy, corner, { class: 'coord' })));
  }
}

// The places of the caller's ship that its moves name but no section holds yet (where a drawn
// section may be connected).
function namedPlaces(moves) {
  return moves.filter((move) => Array.isArray(move.at)).map((move) => move.at.join(','));
}

function drawShip(root, view, index, seat, moves, left, top) {
  const ship = view.ships[index];
  const faces = view.faces ?? {};
  const own = index === seat;
  const places = new Map(ship.sections.map((part) => [part.at.join(','), part]));
  const open = own ? [...new Set(namedPlaces(moves))].filter((key) => !places.has(key)) : [];
  const all = [...places.keys(), ...open].map((key) => key.split(',').map(Number));
  if (!all.length) all.push([0, 0]);
  const xs = all.map(([x]) => x);
  const ys = all.map(([, y]) => y);
  const [minX, minY] = [Math.min(...xs), Math.min(...ys)];
  const columns = Math.max(...xs) - minX + 1;
  const rows = Math.max(...ys) - minY + 1;
  const size = SHIP_CELL; // a whole ship at full size, however long: the panel grows with it
  const room = ship.capacity ?? [0, 0, 0];
  const width = shipWidth(view, index, seat, moves);
  root.append(text(left + width / 2, top + 10, `${MARKS[index]} ${_('ship %(index)s', { index })}${own ? ` ${_('(you)')}` : ''}${ship.out ? ` · ${_('out')}` : ''} · ${_('%(count)s points', { count: ship.score ?? 0 })}`, { class: `ship-title seat-${index}` }));
  // The stores as icons: each resource, then what the ship holds of it and its room.
  ['Y', 'B', 'R'].forEach((letter, i) => { // the view's bag order
    const cx = left + width / 2 + (i - 1) * 52;
    root.append(svg('g', { role: 'img', 'aria-label': _('%(what)s: %(held)s of %(room)s', { what: RESOURCE_NAMES[letter], held: ship.stores[i], room: room[i] }) },
      resourceIcon(letter, cx - 12, top + 26, 6), text(cx + 8, top + 26, `${ship.stores[i]}/${room[i]}`, { class: 'ship-stores' })));
  });
  const gridTop = top + 38;
  for (const [key, part] of places) {
    const [px, py] = part.at;
    const x = left + 4 + (px - minX) * size;
    const yy = gridTop + (py - minY) * size;
    const target = own ? key : `ship${index}:${key}`;
    root.append(cell(target, _('ship %(index)s at %(key)s: %(what)s, turned %(turn)s', { index, key, what: faceWords(part.tile, faces[part.tile]), turn: part.rotation }), `${part.tile}/${part.rotation}`,
      ...tileFace(part.tile, faces[part.tile], x, yy, size, part.rotation)));
  }
  for (const key of open) {
    const [px, py] = key.split(',').map(Number);
    const x = left + 4 + (px - minX) * size;
    const yy = gridTop + (py - minY) * size;
    root.append(cell(key, _('your ship at %(key)s: free place', { key }), 'free',
      svg('rect', { x: x + 2, y: yy + 2, width: size - 4, height: size - 4, rx: 3, class: 'free-place' }),
      svg('path', { d: `M${x + size / 2 - 8} ${yy + size / 2} h16 M${x + size / 2} ${yy + size / 2 - 8} v16`, class: 'free-plus' })));
  }
  return gridTop + rows * size + 8 - top;
}

function shipPlaces(view, index, seat, moves) {
  const ship = view.ships[index];
  const keys = new Set(ship.sections.map((part) => part.at.join(',')));
  if (index === seat) namedPlaces(moves).forEach((key) => keys.add(key));
  const all = [...keys].map((key) => key.split(',').map(Number));
  return all.length ? all : [[0, 0]];
}

function shipWidth(view, index, seat, moves) {
  const xs = shipPlaces(view, index, seat, moves).map(([x]) => x);
  return Math.max(SHIP_PANEL, (Math.max(...xs) - Math.min(...xs) + 1) * SHIP_CELL + 8);
}

const picture = (...children) => () => svg('svg', { viewBox: '-12 -12 24 24', width: 24, height: 24, class: 'legend-board legend-pic', 'aria-hidden': 'true' }, ...children);

export const legend = [
  [picture(shipIcon(0, 2, 0, false)), _("a ship on the map, in its player's colour, with its mark (● ▲ ■ ◆); yours is ringed")],
  ['N1 … W6', _('push entries round the map: a side and a line, counted from 1 (grey: closed this turn)')],
  ['NW NE SE SW', _('the corners a ship starts from')],
  [picture(resourceIcon('Y', -7, 0, 4), resourceIcon('B', 0, 0, 4), resourceIcon('R', 7, 0, 4)), _('resources: radioactive (yellow triangle), carbon (blue disc), metal (red square)')],
  [picture(svg('path', { d: 'M-10 -6 h6 M4 -6 h6', class: 'wall' }), resourceIcon('B', 0, -3, 3)), _('a wall; a gap is a corridor, and the resources in it are what joining there costs')],
  [picture(svg('path', { d: 'M-5 0 h10 M0 -5 v10', class: 'ability-icon make' })), _('the section makes these resources')],
  [picture(svg('path', { d: 'M-6 -5 v10 h12 v-10', class: 'ability-icon store' })), _('the section stores these')],
  [picture(resourceIcon('Y', -7, 0, 3), svg('path', { d: 'M-3 0 h7 m-3 -3 l3 3 l-3 3', class: 'ability-icon convert' }), resourceIcon('R', 8, 0, 3)), _('the section converts one resource into another')],
  [picture(svg('path', { d: 'M-6 0 a6 6 0 0 1 10 -3 M6 0 a6 6 0 0 1 -10 3', class: 'ability-icon recycle' })), _('the section recycles into these')],
  [picture(...pointsStar(3, 0, 0, 10)), _("a section's points")],
  [_('black square'), _('empty space')],
  [_('big arrow'), _('a step your ship may take: tap the cell it points into')],
];

export default function draw(view, { seat, moves = [] }) {
  const span = view.size * CELL + 2 * MARGIN;
  const root = svg('svg', { class: 'board-svg space-junkyard', role: 'group', 'aria-label': _('Space Junkyard map and ships') });
  drawMap(root, view, seat, moves);
  // The ships under the map, left to right, a new row where the next would not fit.
  let [top, left, tallest, widest] = [span + 6, 0, 0, span];
  view.ships.forEach((_, index) => {
    const width = shipWidth(view, index, seat, moves);
    if (left > 0 && left + width > Math.max(span, width)) {
      top += tallest + 6;
      [left, tallest] = [0, 0];
    }
    tallest = Math.max(tallest, drawShip(root, view, index, seat, moves, left, top));
    left += width + 6;
    widest = Math.max(widest, left - 6);
  });
  root.setAttribute('viewBox', `0 0 ${widest} ${top + tallest}`);
  return root;
}
