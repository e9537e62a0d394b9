// Scavenge: the junkyard as the view's `board` gives it (squares "row,col"), its hole one square
// (the "centre"), each player's start point and pawn with its stack of trash, and the good stuff
// (a treasure chest): in the centre, or beside the pawn that carries it. All drawn: the only
// words on the board are the trash counts and the coordinates round the edge.
import { svg, text, cell, edgeLabels } from './svg.js';
import { _ } from '../i18n.js';
import { at, legendPicture, SCAVENGE_PIECES } from './pieces.js';

const CELL = 36;

export default function draw(view, { seat }) {
  const size = view.board.size;
  const hole = new Set(view.board.hole.map((square) => square.join(',')));
  const holeRows = view.board.hole.map(([row]) => row);
  const holeCols = view.board.hole.map(([, col]) => col);
  const edge = 18; // room for the coordinates: rows down the left, columns along the top
  const root = svg('svg', { viewBox: `${-edge} ${-edge} ${size * CELL + edge} ${size * CELL + edge}`, class: 'board-svg scavenge', role: 'group', 'aria-label': _('Scavenge board') });
  const numbers = Array.from({ length: size }, (_, i) => i);
  root.append(edgeLabels([...numbers.map((i) => [-edge / 2, i * CELL + CELL / 2, i]), ...numbers.map((i) => [i * CELL + CELL / 2, -edge / 2, i])]));
  const place = (at) => (Array.isArray(at) ? at.join(',') : String(at)); // a square, or "centre"
  const tokenAt = new Map(view.seats.filter((s) => s.at).map((s) => [place(s.at), s]));
  const startAt = new Map(view.seats.filter((s) => s.start).map((s) => [place(s.start), s]));
  const carrier = view.seats.find((s) => view.good_stuff?.carried_by === s.seat);
  for (let row = 0; row < size; row += 1) {
    for (let col = 0; col < size; col += 1) {
      const key = `${row},${col}`;
      if (hole.has(key)) continue;
      const token = tokenAt.get(key);
      const start = startAt.get(key);
      const x = col * CELL;
      const y = row * CELL;
      const who = token ? `: ${_('player %(seat)s', { seat: token.seat })}${token.seat === seat ? ` ${_('(you)')}` : ''}, ${_('trash %(count)s', { count: token.trash })}` : '';
      const label = `${_('square %(key)s', { key: `${row},${col}` })}${who}${start ? `, ${_('start of player %(seat)s', { seat: start.seat })}` : ''}`;
      root.append(cell(key, label, token ? `p${token.seat}t${token.trash}` : '',
        svg('rect', { x: x + 1, y: y + 1, width: CELL - 2, height: CELL - 2, rx: 3, class: start ? `start seat-${start.seat}` : 'square' }),
        token ? at(x + CELL / 2 - 2, y + CELL / 2 + 1, 1.1, SCAVENGE_PIECES.pawn(token.seat)) : null,
        token === carrier && token ? at(x + CELL - 8, y + 9, 0.5, SCAVENGE_PIECES.goodStuff()) : null,
        token ? trashStack(x, y, token.trash) : null));
    }
  }
  const top = Math.min(...holeRows) * CELL;
  const left = Math.min(...holeCols) * CELL;
  const side = (Math.max(...holeRows) - Math.min(...holeRows) + 1) * CELL;
  const inCentre = view.good_stuff === 'centre';
  const there = tokenAt.get('centre');
  const [cx, cy] = [left + side / 2, top + side / 2];
  const drawn = there
    ? [at(cx, cy, 1.8, SCAVENGE_PIECES.pawn(there.seat)), there === carrier ? at(cx + side / 4, cy - side / 4, 0.8, SCAVENGE_PIECES.goodStuff()) : null]
    : inCentre ? [at(cx, cy + 2, 2, SCAVENGE_PIECES.goodStuff())] : [];
  const label = there ? (there === carrier ? _('the centre: player %(seat)s with the good stuff', { seat: there.seat }) : _('the centre: player %(seat)s', { seat: there.seat }))
    : inCentre ? _('the centre, with the good stuff') : _('the empty centre');
  root.append(cell('centre', label, there ? `p${there.seat}` : inCentre ? 'stuff' : 'empty',
    svg('rect', { x: left + 2, y: top + 2, width: side - 4, height: side - 4, rx: 8, class: 'centre' }),
    ...drawn));
  return root;
}

// The pawn's trash: one small bar a piece, stacked in the square's corner, and its count.
function trashStack(x, y, pieces) {
  const bars = Array.from({ length: pieces }, (_, i) => svg('rect', { x: x + CELL - 8, y: y + CELL - 6 - i * 4, width: 6, height: 3, class: 'trash' }));
  return svg('g', { class: 'trash-stack' }, ...bars, pieces ? text(x + 6, y + 8, pieces, { class: 'coord' }) : null);
}

export const legend = [
  [() => legendPicture(() => SCAVENGE_PIECES.pawn(0)), _("a player's pawn, in its colour, with its seat's mark (● ▲ ■ ◆)")],
  [() => legendPicture(() => SCAVENGE_PIECES.goodStuff()), _('the good stuff: in the centre, or small beside the pawn that carries it')],
  [_('dashed square'), _("a player's start corner, in its colour")],
  [_('bars and number'), _('the trash a pawn carries (bars in its corner, the count top left)')],
  [_('row,col'), _('squares are named row then column, 0-9, as on the edges')],
];
