// Pictures of the games' pieces, drawn for this project in SVG: each a group in a 20x20 box round
// (0, 0), placed with `at`. They carry no words: the board cell they sit on names them (its
// aria-label), and the legend shows each one beside its meaning.
import { svg } from './svg.js';

const INK = '#1d1d1b';

export function at(x, y, scale, shape) {
  return svg('g', { transform: `translate(${x.toFixed(1)} ${y.toFixed(1)}) scale(${scale})` }, shape);
}

// Terrain Vague's pawns and clubhouse, filled with their gang's colour (`fill`).
export const GANG_PIECES = {
  wheelbarrow: (fill) => svg('g', { class: 'pawn-pic wheelbarrow' },
    svg('path', { d: 'M-9 -4 H6 L3 3 H-6 Z', fill, stroke: INK, 'stroke-width': 1.4, 'stroke-linejoin': 'round' }),
    svg('path', { d: 'M6 -4 L10 -8 M-4 3 L-6 8 M1 3 L3 8', stroke: INK, 'stroke-width': 1.6, 'stroke-linecap': 'round', fill: 'none' }),
    svg('circle', { cx: -6, cy: 6, r: 3, fill: '#fff', stroke: INK, 'stroke-width': 1.4 })),
  slingshot: (fill) => svg('g', { class: 'pawn-pic slingshot' },
    svg('path', { d: 'M0 9 V1 L-6 -8 M0 1 L6 -8', stroke: INK, 'stroke-width': 4.6, 'stroke-linecap': 'round', 'stroke-linejoin': 'round', fill: 'none' }),
    svg('path', { d: 'M0 9 V1 L-6 -8 M0 1 L6 -8', stroke: fill, 'stroke-width': 2.6, 'stroke-linecap': 'round', 'stroke-linejoin': 'round', fill: 'none' }),
    svg('path', { d: 'M-6 -8 Q0 -2 6 -8', stroke: INK, 'stroke-width': 1, fill: 'none' })),
  lid: (fill) => svg('g', { class: 'pawn-pic lid' },
    svg('ellipse', { cx: 0, cy: 2, rx: 9.5, ry: 5.5, fill, stroke: INK, 'stroke-width': 1.4 }),
    svg('ellipse', { cx: 0, cy: 1, rx: 6, ry: 2.8, fill: 'none', stroke: INK, 'stroke-width': .8, opacity: .6 }),
    svg('rect', { x: -3, y: -6, width: 6, height: 4.5, rx: 1.5, fill, stroke: INK, 'stroke-width': 1.2 })),
  big_brother: (fill) => svg('g', { class: 'pawn-pic big-brother' },
    svg('circle', { cx: 0, cy: -5.5, r: 4.2, fill, stroke: INK, 'stroke-width': 1.4 }),
    svg('path', { d: 'M-9 10 Q-9 -1 0 -1 Q9 -1 9 10 Z', fill, stroke: INK, 'stroke-width': 1.4 }),
    svg('path', { d: 'M-3 3 H3', stroke: INK, 'stroke-width': 1.2 })),
  clubhouse: (fill) => svg('g', { class: 'pawn-pic clubhouse' },
    svg('path', { d: 'M-10 -1 L0 -10 L10 -1 V9 H-10 Z', fill, stroke: INK, 'stroke-width': 1.6, 'stroke-linejoin': 'round' }),
    svg('path', { d: 'M-12 0 L0 -11 L12 0', fill: 'none', stroke: INK, 'stroke-width': 2.4, 'stroke-linecap': 'round' }),
    svg('rect', { x: -2.5, y: 2, width: 5, height: 7, fill: '#fff', stroke: INK, 'stroke-width': 1 })),
};

// A little picture for a legend entry: the piece in a small SVG of its own.
export function legendPicture(draw, fill = '#888') {
  return svg('svg', { viewBox: '-12 -12 24 24', width: 24, height: 24, class: 'legend-pic', 'aria-hidden': 'true' }, draw(fill));
}

// A seat's mark (● ▲ ■ ◆ by seat), drawn, so colour is never the only signal: white on the piece.
const SEAT_MARKS = [
  (r) => svg('circle', { r, fill: '#fff', stroke: INK, 'stroke-width': 0.8 }),
  (r) => svg('path', { d: `M0 ${-r * 1.2} L${r * 1.1} ${r * 0.8} H${-r * 1.1} Z`, fill: '#fff', stroke: INK, 'stroke-width': 0.8 }),
  (r) => svg('path', { d: `M${-r} ${-r} H${r} V${r} H${-r} Z`, fill: '#fff', stroke: INK, 'stroke-width': 0.8 }),
  (r) => svg('path', { d: `M0 ${-r * 1.3} L${r * 1.3} 0 L0 ${r * 1.3} L${-r * 1.3} 0 Z`, fill: '#fff', stroke: INK, 'stroke-width': 0.8 }),
];

// Scavenge's pieces: a player's pawn in its seat's colour (the `seat-N` class) with the seat's
// mark on its body, and the good stuff, a treasure chest. Paths, not rects or polygons: the
// boards' CSS styles a cell's rects and polygons as its squares.
export const SCAVENGE_PIECES = {
  pawn: (seat) => svg('g', { class: 'pawn-pic scavenge-pawn' },
    svg('path', { d: 'M-8 9 Q-8 1 -3 -1 L3 -1 Q8 1 8 9 Z', class: `seat-${seat}`, stroke: INK, 'stroke-width': 1.3, 'stroke-linejoin': 'round' }),
    svg('circle', { cy: -5.5, r: 4.5, class: `seat-${seat}`, stroke: INK, 'stroke-width': 1.3 }),
    svg('path', { d: 'M-9.5 7.5 H9.5 V10.5 H-9.5 Z', class: `seat-${seat}`, stroke: INK, 'stroke-width': 1.1, 'stroke-linejoin': 'round' }),
    svg('g', { transform: 'translate(0 4.5)' }, SEAT_MARKS[seat % SEAT_MARKS.length](2.4))),
  goodStuff: () => svg('g', { class: 'pawn-pic good-stuff' },
    svg('path', { d: 'M-9 -2 H9 V9 H-9 Z', fill: '#a0662a', stroke: INK, 'stroke-width': 1.3, 'stroke-linejoin': 'round' }),
    svg('path', { d: 'M-9 -2 Q-9 -9 0 -9 Q9 -9 9 -2 Z', fill: '#c98a3c', stroke: INK, 'stroke-width': 1.3 }),
    svg('path', { d: 'M-9 -2 H9', stroke: '#f5c542', 'stroke-width': 2 }),
    svg('path', { d: 'M-2 -3.5 H2 V1.5 H-2 Z', fill: '#f5c542', stroke: INK, 'stroke-width': 0.9 }),
    svg('path', { d: 'M6 -12 l1 2.2 2.2 1 -2.2 1 -1 2.2 -1 -2.2 -2.2 -1 2.2 -1 Z', fill: '#f5c542', stroke: '#7a5a00', 'stroke-width': 0.6 })),
};
