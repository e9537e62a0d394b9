// Terrain Vague: a hex board in axial coordinates ("q,r"), each hex a gang's turf (letter, upper
// case tough) or the Toxic Waste in the middle, with pawns and clubhouses on it.
import { svg, text, cell } from './svg.js';

const SIZE = 26;
const LETTER = { rubbles: 'R', brambles: 'B', cesspools: 'C', scrappers: 'S' };
const PAWN = { wheelbarrow: 'w', slingshot: 's', lid: 'l', big_brother: 'b' };

function centre(q, r) {
  return [SIZE * Math.sqrt(3) * (q + r / 2), SIZE * 1.5 * r];
}

function hexagon(cx, cy) {
  const corners = [];
  for (let i = 0; i < 6; i += 1) {
    const angle = (Math.PI / 180) * (60 * i - 30);
    corners.push(`${(cx + (SIZE - 1) * Math.cos(angle)).toFixed(1)},${(cy + (SIZE - 1) * Math.sin(angle)).toFixed(1)}`);
  }
  return corners.join(' ');
}

// Hexes the moves name that are not on the board yet (while the players build it).
function open(moves, known) {
  const found = new Map();
  const walk = (value) => {
    if (Array.isArray(value)) {
      if (value.length === 2 && value.every(Number.isInteger)) {
        const key = value.join(',');
        if (!known.has(key)) found.set(key, { q: value[0], r: value[1], gang: null, strength: null, open: true });
      } else value.forEach(walk);
    } else if (value && typeof value === 'object') Object.values(value).forEach(walk);
  };
  walk(moves);
  return [...found.values()];
}

export const legend = [
  ['R B C S', 'turf of the Rubbles, Brambles, Cesspools, Scrappers (capital and thick edge: tough; small: wimpy)'],
  ['~', 'the Toxic Waste'],
  ['⌂', "a gang's clubhouse"],
  ['w s l b', 'pawns: wheelbarrow, slingshot, lid, big brother, in their gang’s colour (e.g. Rw)'],
  ['dashed hex', 'not built yet'],
  ['q,r', 'each hex is named by its axial coordinates, written small at its foot'],
];

export default function draw(view, { moves = [] } = {}) {
  const built = view.board.map(([q, r, gang, strength]) => ({ q, r, gang, strength }));
  const hexes = [...built, ...open(moves, new Set(built.map((h) => `${h.q},${h.r}`)))];
  if (!hexes.length) return null;
  const points = hexes.map((h) => centre(h.q, h.r));
  const xs = points.map(([x]) => x);
  const ys = points.map(([, y]) => y);
  const [minX, minY] = [Math.min(...xs) - SIZE, Math.min(...ys) - SIZE];
  const width = Math.max(...xs) + SIZE - minX;
  const height = Math.max(...ys) + SIZE - minY;
  const root = svg('svg', { viewBox: `${minX} ${minY} ${width} ${height}`, class: 'board-svg terrain-vague', role: 'group', 'aria-label': 'Terrain Vague board' });
  const pawnsAt = new Map();
  const seatOf = (gang) => (view.seats ?? []).indexOf(gang);
  for (const [q, r, gang, kind] of view.pawns ?? []) {
    const key = `${q},${r}`;
    pawnsAt.set(key, [...(pawnsAt.get(key) ?? []), { mark: `${LETTER[gang]}${PAWN[kind] ?? kind}`, seat: seatOf(gang), words: `${gang} ${kind.replace('_', ' ')}` }]);
  }
  const placed = Object.entries(view.clubhouses ?? {}).filter(([, at]) => Array.isArray(at));
  const clubhouseAt = new Map(placed.map(([gang, [q, r]]) => [`${q},${r}`, gang]));
  for (const hex of hexes) {
    const key = `${hex.q},${hex.r}`;
    const [cx, cy] = centre(hex.q, hex.r);
    const waste = hex.open ? '' : '~';
    const turf = hex.gang ? (hex.strength === 'tough' ? LETTER[hex.gang] : LETTER[hex.gang].toLowerCase()) : waste;
    const pawns = pawnsAt.get(key) ?? [];
    const club = clubhouseAt.get(key);
    const label = `hex ${key}: ${hex.gang ? `${hex.strength} ${hex.gang}` : hex.open ? 'not built yet' : 'toxic waste'}${club ? `, ${club} clubhouse` : ''}${pawns.length ? `, ${pawns.map((p) => p.words).join(', ')}` : ''}`;
    root.append(cell(key, label, `${turf}${club ? 'H' : ''}${pawns.map((p) => p.mark).join('')}`,
      svg('polygon', { points: hexagon(cx, cy), class: `hex ${hex.gang ?? (hex.open ? 'open' : 'waste')} ${hex.strength ?? ''}` }),
      text(cx, cy - 9, `${turf}${club ? '⌂' : ''}`, club ? { class: `club seat-${seatOf(club)}` } : {}),
      pawns.length ? text(cx, cy + 5, pawns.map((p) => p.mark).join(' '), { class: `token pawn seat-${pawns[0].seat}` }) : null,
      text(cx, cy + 17, key, { class: 'coord hex-name' })));
  }
  return root;
}
