// Space Junkyard: the square map of tiles with their printed faces, each ship where it is, the
// push entries round the edge ("N1" … "W6") and the corners ("NW" …) as targets; under the map,
// every ship's sections on a grid of its own, turned as joined, with its stores and score.
// The caller's own ship takes clicks at its places ("x,y", as the moves name them) and, on the
// map, at the step directions its moves list; the faces come from the view's `faces`, keyed by
// tile id.
import { svg, text, cell } from './svg.js';

const CELL = 64;
const MARGIN = 28;
const SHIP_PANEL = 210; // width of one ship's panel under the map
const SHIP_CELL = 52;
const MARKS = ['●', '▲', '■', '◆']; // a shape per ship, so colour is never the only signal
const SIDES = ['N', 'E', 'S', 'W'];
const ENTRY_AT = {
  N: (line, size) => [MARGIN + (line - 0.5) * CELL, MARGIN / 2],
  S: (line, size) => [MARGIN + (line - 0.5) * CELL, MARGIN * 1.5 + size * CELL],
  W: (line) => [MARGIN / 2, MARGIN + (line - 0.5) * CELL],
  E: (line, size) => [MARGIN * 1.5 + size * CELL, MARGIN + (line - 0.5) * CELL],
};
const CORNER_AT = { NW: [0, 0], NE: [1, 0], SE: [1, 1], SW: [0, 1] };
const RESOURCE_NAMES = { Y: 'radioactive', B: 'carbon', R: 'metal' };

// A section's edges N, E, S, W after turning it `rotation` degrees clockwise.
function turned(edges, rotation) {
  const steps = (rotation / 90) % 4;
  return SIDES.map((_, side) => edges[(side - steps + 4) % 4]);
}

function resourceDots(bagText, cx, cy, radius) {
  const letters = [...bagText];
  const step = radius * 2.2;
  const left = cx - ((letters.length - 1) * step) / 2;
  return letters.map((letter, i) => svg('g', { class: `resource res-${letter}` },
    svg('circle', { cx: left + i * step, cy, r: radius }),
    text(left + i * step, cy, letter, { class: 'resource-letter', 'font-size': radius * 1.4 })));
}

// What a section does, in a few characters: "+Y/B" produces, "▢BB" stores, "Y›B" converts.
function ability(face) {
  if (face.produce) return `+${[...face.produce].join('/')}`;
  if (face.store) return `▢${face.store}`;
  if (face.convert) return `${face.convert[0]}›${face.convert[1]}`;
  return '';
}

function faceWords(id, face) {
  if (!face) return id;
  if (face.kind === 'asteroid') return `asteroid ${id} of ${[...face.resources].map((r) => RESOURCE_NAMES[r]).join(', ')}`;
  const sides = face.edges.map((edge, i) => `${SIDES[i]} ${edge === null ? 'closed' : edge === '' ? 'open' : `open for ${edge}`}`);
  const does = [face.produce && `produces ${face.produce}`, face.store && `stores ${face.store}`,
    face.convert && `converts ${face.convert.join(' to ')}`, face.recycle && `recycles for ${face.recycle}`].filter(Boolean);
  return `${face.kind} ${id}: ${[...does, `${face.points} points`, ...sides].join(', ')}`;
}

// One tile drawn in the square (x, y, size): an asteroid's resources, or a section's walls and
// openings (with what each opening costs), its ability and its points.
function tileFace(id, face, x, y, size, rotation = 0) {
  const parts = [svg('rect', { x: x + 1, y: y + 1, width: size - 2, height: size - 2, rx: 3, class: face ? face.kind : 'space' })];
  if (!face) return parts;
  if (face.kind === 'asteroid') {
    parts.push(text(x + size / 2, y + size * 0.22, id, { class: 'coord' }));
    parts.push(...resourceDots(face.resources, x + size / 2, y + size * 0.62, size * 0.11));
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
    const mx = (x1 + x2) / 2 + inward[0] * size * 0.12;
    const my = (y1 + y2) / 2 + inward[1] * size * 0.12;
    parts.push(svg('line', { x1, y1, x2: x1 + (x2 - x1) * 0.3, y2: y1 + (y2 - y1) * 0.3, class: 'wall' }));
    parts.push(svg('line', { x1: x2 - (x2 - x1) * 0.3, y1: y2 - (y2 - y1) * 0.3, x2, y2, class: 'wall' }));
    parts.push(text(mx, my, edge || '·', { class: 'cost', 'font-size': size * 0.15 }));
  });
  const name = face.kind === 'bridge' ? 'BRG' : id;
  parts.push(text(x + size / 2, y + size * 0.36, `${name} ${face.points}★`, { class: 'coord', 'font-size': size * 0.14 }));
  parts.push(text(x + size / 2, y + size * 0.6, ability(face), { class: 'ability', 'font-size': size * 0.15 }));
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
      const label = `row ${row + 1}, column ${col + 1}: ${tile ? faceWords(tile, faces[tile]) : 'empty space'}${ships.length ? `; ship ${ships.join(' and ')}` : ''}`;
      root.append(cell(`map:${col},${row}`, label, `${tile ?? ''}@${ships.join(',')}`,
        ...tileFace(tile, faces[tile], x, y, CELL),
        ships.length ? svg('rect', { x: x + CELL / 2 - 17, y: y + CELL - 21, width: 34, height: 18, rx: 9, class: `ship-disc seat-${ships[0]}` }) : null,
        ships.length ? text(x + CELL / 2, y + CELL - 12, ships.map((s) => `${MARKS[s]}${s}${s === seat ? '*' : ''}`).join(' '), { class: 'ship-mark' }) : null));
    }
  }
  const mine = seat !== null && seat !== undefined ? view.ships[seat] : null;
  const steps = new Set(moves.map((move) => move.dir).filter(Boolean));
  if (mine && mine.at && !mine.out && steps.size) drawSteps(root, mine.at, steps, size);
  drawEdge(root, view);
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
    const label = onMap ? `step ${dir}, to row ${toRow + 1}, column ${toCol + 1}` : `step ${dir}`;
    root.append(cell(dir, label, '', stepArrow(col, row, dx, dy), into));
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

function drawEdge(root, view) {
  const size = view.size;
  const closed = new Set(view.closed_entries ?? []);
  for (const [side, place] of Object.entries(ENTRY_AT)) {
    for (let line = 1; line <= size; line += 1) {
      const entry = `${side}${line}`;
      const [cx, cy] = place(line, size);
      root.append(cell(entry, `entry ${entry}${closed.has(entry) ? ' (closed)' : ''}`, closed.has(entry) ? 'closed' : 'open',
        svg('rect', { x: cx - 12, y: cy - 12, width: 24, height: 24, rx: 12, class: closed.has(entry) ? 'entry closed' : 'entry' }),
        text(cx, cy, entry, { class: 'coord' })));
    }
  }
  const far = MARGIN * 2 + size * CELL;
  for (const [corner, [right, down]] of Object.entries(CORNER_AT)) {
    const cx = right ? far - MARGIN / 2 : MARGIN / 2;
    const cy = down ? far - MARGIN / 2 : MARGIN / 2;
    root.append(cell(corner, `corner ${corner}`, '',
      svg('rect', { x: cx - 13, y: cy - 13, width: 26, height: 26, rx: 4, class: 'entry corner' }),
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
  const size = Math.min(SHIP_CELL, (SHIP_PANEL - 8) / columns);
  const room = ship.capacity ?? [0, 0, 0];
  const stores = ['Y', 'B', 'R'].map((letter, i) => `${letter}${ship.stores[i]}/${room[i]}`).join(' '); // the view's bag order
  root.append(text(left + SHIP_PANEL / 2, top + 10, `${MARKS[index]} ship ${index}${own ? ' (you)' : ''}${ship.out ? ' · out' : ''} · ${ship.score ?? 0}★`, { class: `ship-title seat-${index}` }));
  root.append(text(left + SHIP_PANEL / 2, top + 26, `stores ${stores}`, { class: 'ship-stores' }));
  const gridTop = top + 38;
  for (const [key, part] of places) {
    const [px, py] = part.at;
    const x = left + 4 + (px - minX) * size;
    const yy = gridTop + (py - minY) * size;
    const target = own ? key : `ship${index}:${key}`;
    root.append(cell(target, `ship ${index} at ${key}: ${faceWords(part.tile, faces[part.tile])}, turned ${part.rotation}`, `${part.tile}/${part.rotation}`,
      ...tileFace(part.tile, faces[part.tile], x, yy, size, part.rotation)));
  }
  for (const key of open) {
    const [px, py] = key.split(',').map(Number);
    const x = left + 4 + (px - minX) * size;
    const yy = gridTop + (py - minY) * size;
    root.append(cell(key, `your ship at ${key}: free place`, 'free',
      svg('rect', { x: x + 2, y: yy + 2, width: size - 4, height: size - 4, rx: 3, class: 'free-place' }),
      text(x + size / 2, yy + size / 2, key, { class: 'coord' })));
  }
  return gridTop + rows * size + 8 - top;
}

export const legend = [
  ['● ▲ ■ ◆ + number', "a ship on the map, in its player's colour (* marks yours)"],
  ['N1 … W6', 'push entries round the map: a side and a line, counted from 1 (grey: closed this turn)'],
  ['NW NE SE SW', 'the corners a ship starts from'],
  ['Y B R dots', 'an asteroid\'s resources: radioactive (yellow), carbon (blue), metal (red)'],
  ['thick edge / gap', 'a section\'s wall / an opening; the letter in a gap is what joining there costs'],
  ['+Y/B ▢BB Y›B', 'a section makes, stores, converts'],
  ['3★', 'a section\'s points'],
  ['black square', 'empty space'],
  ['▲ and a dashed cell', 'a step your ship may take: tap the arrow or the dashed cell it steps into'],
];

export default function draw(view, { seat, moves = [] }) {
  const span = view.size * CELL + 2 * MARGIN;
  const perRow = Math.max(1, Math.floor(span / SHIP_PANEL));
  const root = svg('svg', { class: 'board-svg space-junkyard', role: 'group', 'aria-label': 'Space Junkyard map and ships' });
  drawMap(root, view, seat, moves);
  let top = span + 6;
  for (let first = 0; first < view.ships.length; first += perRow) {
    let tallest = 0;
    for (let index = first; index < Math.min(view.ships.length, first + perRow); index += 1) {
      const left = (index - first) * (span / perRow) + (span / perRow - SHIP_PANEL) / 2;
      tallest = Math.max(tallest, drawShip(root, view, index, seat, moves, left, top));
    }
    top += tallest + 6;
  }
  root.setAttribute('viewBox', `0 0 ${span} ${top}`);
  return root;
}
