// Terrain Vague: a hex board in axial coordinates ("q,r"). Each hex is a gang's turf, told by its
// colour and its texture (the Rubbles' stones, the Brambles' thorns, the Cesspools' ripples, the
// Scrappers' scrap), tough turf dark with a thick rim and wimpy turf pale; the Toxic Waste in the
// middle is dark sludge. The pawns are pictures (wheelbarrow, slingshot, lid, big brother) and a
// clubhouse a little house, all in their gang's colour. Coordinates are written only round the
// board's edge; every hex names itself and what stands on it in words (its aria-label).
import { svg, text, cell } from './svg.js';
import { _ } from '../i18n.js';
import { at, GANG_PIECES, legendPicture } from './pieces.js';

const SIZE = 26;
const GANG_COLOUR = { rubbles: 'sienna', brambles: 'forestgreen', cesspools: 'royalblue', scrappers: 'darkorchid' };
const NEIGHBOURS = [[1, 0], [1, -1], [0, -1], [-1, 0], [-1, 1], [0, 1]];

function centre(q, r) {
  return [SIZE * Math.sqrt(3) * (q + r / 2), SIZE * 1.5 * r];
}

function hexagon(cx, cy, size = SIZE - 1) {
  const corners = [];
  for (let i = 0; i < 6; i += 1) {
    const angle = (Math.PI / 180) * (60 * i - 30);
    corners.push(`${(cx + size * Math.cos(angle)).toFixed(1)},${(cy + size * Math.sin(angle)).toFixed(1)}`);
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

// The turf textures, one pattern per gang (drawn over the turf's colour).
function textures() {
  const pattern = (gang, ...marks) => svg('pattern', { id: `tv-${gang}`, width: 10, height: 10, patternUnits: 'userSpaceOnUse' }, ...marks);
  const ink = { fill: 'none', stroke: 'rgba(0,0,0,.35)', 'stroke-width': 1.1, 'stroke-linecap': 'round' };
  return svg('defs', {},
    pattern('rubbles', svg('circle', { cx: 2.5, cy: 2.5, r: 1.6, fill: 'rgba(0,0,0,.28)' }), svg('circle', { cx: 7.5, cy: 7, r: 1.1, fill: 'rgba(0,0,0,.22)' })),
    pattern('brambles', svg('path', { d: 'M1 9 L5 5 L9 9 M5 5 V1 M3 3 L5 5 M7 3 L5 5', ...ink })),
    pattern('cesspools', svg('path', { d: 'M0 4 Q2.5 1.5 5 4 T10 4 M0 9 Q2.5 6.5 5 9 T10 9', ...ink })),
    pattern('scrappers', svg('path', { d: 'M1 1 L4 4 M4 1 L1 4 M6 6 H9 V9 H6 Z', ...ink })),
    pattern('waste', svg('circle', { cx: 3, cy: 3, r: 1.8, fill: 'rgba(160,200,40,.55)' }), svg('circle', { cx: 8, cy: 8, r: 1.2, fill: 'rgba(160,200,40,.45)' })));
}

const GANG_WORDS = { rubbles: _('Rubbles'), brambles: _('Brambles'), cesspools: _('Cesspools'), scrappers: _('Scrappers') };
const PAWN_WORDS = { wheelbarrow: _('wheelbarrow'), slingshot: _('slingshot'), lid: _('lid'), big_brother: _('big brother'), clubhouse: _('clubhouse') };

export const legend = [
  [() => swatch('rubbles'), _('the Rubbles’ turf (stones)')],
  [() => swatch('brambles'), _('the Brambles’ turf (thorns)')],
  [() => swatch('cesspools'), _('the Cesspools’ turf (ripples)')],
  [() => swatch('scrappers'), _('the Scrappers’ turf (scrap)')],
  [_('dark, thick rim'), _('tough turf; pale: wimpy')],
  [() => swatch('waste'), _('the Toxic Waste')],
  [() => legendPicture(GANG_PIECES.wheelbarrow), _('wheelbarrow')],
  [() => legendPicture(GANG_PIECES.slingshot), _('slingshot')],
  [() => legendPicture(GANG_PIECES.lid), _('lid')],
  [() => legendPicture(GANG_PIECES.big_brother), _('big brother')],
  [() => legendPicture(GANG_PIECES.clubhouse), _('clubhouse (pieces are in their gang’s colour)')],
  [_('dashed hex'), _('not built yet')],
  ['q,r', _('coordinates, written round the edge')],
];

function swatch(gang) {
  const colour = GANG_COLOUR[gang] ?? '#3c3b2a';
  return svg('svg', { viewBox: '-12 -12 24 24', width: 24, height: 24, class: 'legend-pic', 'aria-hidden': 'true' },
    svg('polygon', { points: hexagon(0, 0, 11), fill: colour, stroke: '#1d1d1b' }),
    svg('polygon', { points: hexagon(0, 0, 10), fill: `url(#tv-${gang})` })); // the board's own pattern, by its id
}

export default function draw(view, { moves = [] } = {}) {
  const built = view.board.map(([q, r, gang, strength]) => ({ q, r, gang, strength }));
  const hexes = [...built, ...open(moves, new Set(built.map((h) => `${h.q},${h.r}`)))];
  if (!hexes.length) return null;
  const known = new Set(hexes.map((h) => `${h.q},${h.r}`));
  const points = hexes.map((h) => centre(h.q, h.r));
  const xs = points.map(([x]) => x);
  const ys = points.map(([, y]) => y);
  const pad = SIZE + 24; // room for the coordinates round the edge
  const [minX, minY] = [Math.min(...xs) - pad, Math.min(...ys) - pad];
  const width = Math.max(...xs) + pad - minX;
  const height = Math.max(...ys) + pad - minY;
  const root = svg('svg', { viewBox: `${minX} ${minY} ${width} ${height}`, class: 'board-svg terrain-vague', role: 'group', 'aria-label': _('Terrain Vague board') }, textures());
  const pawnsAt = new Map();
  for (const [q, r, gang, kind] of view.pawns ?? []) {
    const key = `${q},${r}`;
    pawnsAt.set(key, [...(pawnsAt.get(key) ?? []), { gang, kind, words: _('%(gang)s %(pawn)s', { gang: GANG_WORDS[gang] ?? gang, pawn: PAWN_WORDS[kind] ?? kind.replace('_', ' ') }) }]);
  }
  const placed = Object.entries(view.clubhouses ?? {}).filter(([, at]) => Array.isArray(at));
  const clubhouseAt = new Map(placed.map(([gang, [q, r]]) => [`${q},${r}`, gang]));
  const [midX, midY] = [xs.reduce((a, b) => a + b, 0) / xs.length, ys.reduce((a, b) => a + b, 0) / ys.length];
  const edges = [];
  for (const hex of hexes) {
    const key = `${hex.q},${hex.r}`;
    const [cx, cy] = centre(hex.q, hex.r);
    const pawns = pawnsAt.get(key) ?? [];
    const club = clubhouseAt.get(key);
    const kind = hex.gang ?? (hex.open ? 'open' : 'waste');
    const ground = hex.gang ? _('%(strength)s turf of the %(gang)s', { strength: hex.strength === 'tough' ? _('tough') : _('wimpy'), gang: GANG_WORDS[hex.gang] ?? hex.gang }) : hex.open ? _('not built yet') : _('the Toxic Waste');
    const label = `${_('hex %(key)s', { key })}: ${ground}${club ? `, ${_('clubhouse of the %(gang)s', { gang: GANG_WORDS[club] ?? club })}` : ''}${pawns.length ? `, ${pawns.map((p) => p.words).join(', ')}` : ''}`;
    const state = `${kind}${hex.strength ?? ''}${club ? `H${club}` : ''}${pawns.map((p) => `${p.gang}${p.kind}`).join('')}`;
    root.append(cell(key, label, state,
      svg('polygon', { points: hexagon(cx, cy), class: `hex ${kind} ${hex.strength ?? ''}` }),
      hex.open ? null : svg('polygon', { points: hexagon(cx, cy, SIZE - 3), class: `texture ${hex.gang ?? 'waste'}` }),
      ...pieces(cx, cy, club, pawns)));
    if (NEIGHBOURS.some(([dq, dr]) => !known.has(`${hex.q + dq},${hex.r + dr}`))) {
      const [dx, dy] = [cx - midX, cy - midY];
      const length = Math.hypot(dx, dy) || 1;
      edges.push(text(cx + (dx / length) * (SIZE + 8), cy + (dy / length) * (SIZE + 8), key, { class: 'edge hex-edge' }));
    }
  }
  root.append(svg('g', { class: 'edge-labels', 'aria-hidden': 'true' }, ...edges));
  return root;
}

// The clubhouse and up to four pawns on a hex, as pictures on counters side by side (more are
// named in words).
function pieces(cx, cy, club, pawns) {
  const drawn = [];
  const all = [...(club ? [{ gang: club, kind: 'clubhouse' }] : []), ...pawns];
  const spots = all.length === 1 ? [[0, 0]] : all.length === 2 ? [[-9, 0], [9, 0]] : [[-9, -8], [9, -8], [-9, 8], [9, 8]];
  const scale = all.length === 1 ? 0.95 : 0.62;
  all.slice(0, 4).forEach((piece, index) => {
    const [dx, dy] = spots[index];
    const colour = GANG_COLOUR[piece.gang] ?? '#777';
    // On a pale counter ringed in the gang's colour: a green pawn on the Brambles' green turf
    // was lost in it.
    drawn.push(at(cx + dx, cy + dy, scale, svg('g', {},
      svg('circle', { r: 12, class: 'pawn-counter', fill: '#fbf8ef', stroke: colour, 'stroke-width': 2.2 }),
      GANG_PIECES[piece.kind]?.(colour) ?? svg('g'))));
  });
  if (all.length > 4) drawn.push(text(cx, cy + 17, `+${all.length - 4}`, { class: 'token' }));
  return drawn;
}
