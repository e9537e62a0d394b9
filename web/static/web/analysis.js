// The analysis of a finished game on its page: a "Request analysis" button, then (once a worker
// has run the bot over every move) an evaluation graph drawn here in SVG, a mark on each marked
// move of the log, and, as the replay slider moves, the move the bot preferred at that position
// marked on the board. Like the rest of the page it knows no rules: the API says each value, each
// mark and each preferred move, and the board's parts are matched by the move's tokens.
import { api, el, ApiError } from './api.js';
import { tokensOf } from './pointing.js';
import { _, ngettext, numberText } from './i18n.js';

const $ = (id) => document.getElementById(id);
const SVG = 'http://www.w3.org/2000/svg';
const MARK_SIGNS = { mistake: '??', inaccuracy: '?!' };
const MARK_WORDS = { mistake: _('mistake'), inaccuracy: _('inaccuracy') };
const markWord = (mark) => MARK_WORDS[mark] ?? mark;
// A move in the reader's words, its notation (what a mail reply types) after it where that reads
// otherwise; an analysis stored before its words were kept has its notation alone.
const movePlayed = (move) => toldWithNotation(move.words ?? move.text, move.text);
const movePreferred = (move) => toldWithNotation(move.preferred_words ?? move.preferred_text, move.preferred_text);
const toldWithNotation = (words, notation) => (words === notation ? words : `${words} (${notation})`);
const state = { gameId: null, seen: (path) => path, seatName: String, status: null, bySeq: new Map(), moves: [], timer: null };

// Called by game.js after each load of the game (and so after each drawing of the log).
export function showAnalysis(game, { seatName, seen }) {
  const box = $('analysis-box');
  if (!box) return;
  box.hidden = game.status !== 'finished';
  if (box.hidden) return;
  Object.assign(state, { seatName, seen });
  if (state.gameId !== game.id) {
    state.gameId = game.id;
    $('analysis-request').addEventListener('click', request);
    read();
  } else markLog();
}

async function read() {
  clearTimeout(state.timer);
  try {
    show(await api('GET', state.seen(`/games/${state.gameId}/analysis/`)));
  } catch (error) {
    $('analysis-status').textContent = _('Could not read the analysis: %(why)s', { why: error.message });
  }
}

async function request() {
  $('analysis-request').disabled = true;
  try {
    show(await api('POST', `/games/${state.gameId}/analysis/`));
  } catch (error) {
    const told = error instanceof ApiError && error.status === 401 ? _('Sign in to ask for an analysis.') : error.message;
    $('analysis-status').textContent = _('Not asked: %(why)s', { why: told });
    $('analysis-request').disabled = false;
  }
}

const STATUS_WORDS = {
  none: _('Nobody has asked for an analysis of this game yet.'),
  queued: _('Analysis queued: a bot will look at every move.'),
  running: _('The bot is looking at every move…'),
  failed: _('The analysis failed; ask again.'),
};

function show(answer) {
  state.status = answer.status;
  const signedIn = document.querySelector('nav a[href="/account/"]') !== null;
  $('analysis-request').hidden = !signedIn || !['none', 'failed'].includes(answer.status);
  $('analysis-request').disabled = false;
  $('analysis-note').textContent = answer.seen_from;
  if (answer.status !== 'done') {
    $('analysis-status').textContent = STATUS_WORDS[answer.status] ?? answer.status;
    if (answer.status === 'queued' || answer.status === 'running') state.timer = setTimeout(read, 2000);
    return;
  }
  state.moves = answer.moves;
  state.bySeq = new Map(answer.moves.map((move) => [move.seq, move]));
  const count = (mark) => answer.moves.filter((move) => move.mark === mark).length;
  $('analysis-status').textContent = [
    ngettext('Analysed: %(count)s move', 'Analysed: %(count)s moves', answer.moves.length),
    ngettext('%(count)s mistake (??)', '%(count)s mistakes (??)', count('mistake')),
    ngettext('%(count)s inaccuracy (?!).', '%(count)s inaccuracies (?!).', count('inaccuracy')),
  ].join(', ') + ` ${_("The graph shows each player's winning chances after each of their moves, as the bot saw them from that player's view.")}`;
  const seats = [...new Set(answer.moves.map((move) => move.seat))].sort();
  const legend = el('p', { class: 'analysis-legend' }, ...seats.map((seat) => el('span', { class: `key line-${seat % 4}` }, `— ${state.seatName(seat)}`)));
  $('analysis-graph').replaceChildren(graph(answer), legend);
  $('analysis-graph').hidden = false;
  markLog();
}

function svg(tag, attributes = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

// Each seat's line of its own evaluation after its moves, 0 at the bottom and 1 at the top;
// marked moves are dots with their notation as a tooltip.
function graph(answer) {
  const width = 600;
  const height = 160;
  const pad = 8;
  const [low, high] = answer.range;
  const moves = answer.moves;
  const x = (index) => pad + (moves.length > 1 ? (index * (width - 2 * pad)) / (moves.length - 1) : (width - 2 * pad) / 2);
  const y = (value) => pad + (1 - (value - low) / (high - low)) * (height - 2 * pad);
  const seats = [...new Set(moves.map((move) => move.seat))].sort();
  const figure = svg('svg', { viewBox: `0 0 ${width} ${height}`, class: 'analysis-graph', role: 'img',
    'aria-label': ngettext('Evaluation graph of %(count)s move: %(seats)s', 'Evaluation graph of %(count)s moves: %(seats)s', moves.length, { seats: seats.map((seat) => state.seatName(seat)).join(', ') }) });
  figure.append(svg('line', { x1: pad, x2: width - pad, y1: y((low + high) / 2), y2: y((low + high) / 2), class: 'even' }));
  figure.append(svg('text', { x: pad, y: pad + 10, class: 'axis' }, _('winning')), svg('text', { x: pad, y: height - pad - 2, class: 'axis' }, _('losing')));
  for (const seat of seats) {
    const points = moves.flatMap((move, index) => (move.seat === seat ? [`${x(index).toFixed(1)},${y(move.after).toFixed(1)}`] : []));
    figure.append(svg('polyline', { points: points.join(' '), class: `line line-${seat % 4}`, 'data-seat': seat },
      svg('title', {}, _('%(name)s: winning chances after each move', { name: state.seatName(seat) }))));
  }
  moves.forEach((move, index) => {
    if (!move.mark) return;
    figure.append(svg('circle', { cx: x(index), cy: y(move.after), r: 5, class: `mark ${move.mark}`, 'data-seq': move.seq },
      svg('title', {}, _('%(mark)s at event %(seq)s: %(move)s (%(before)s → %(after)s); the bot preferred %(preferred)s', { mark: markWord(move.mark), seq: move.seq, move: movePlayed(move), before: numberText(move.before, 2), after: numberText(move.after, 2), preferred: movePreferred(move) }))));
  });
  return figure;
}

function markLog() {
  for (const item of document.querySelectorAll('#log li[data-seq]')) {
    const move = state.bySeq.get(Number(item.dataset.seq));
    item.querySelector('.analysis-mark')?.remove();
    if (!move?.mark) continue;
    item.append(' ', el('span', { class: `analysis-mark ${move.mark}`, title: _('%(mark)s: the bot preferred %(preferred)s', { mark: markWord(move.mark), preferred: movePreferred(move) }) },
      MARK_SIGNS[move.mark], el('span', { class: 'sr-only' }, ` ${_('%(mark)s; the bot preferred %(preferred)s', { mark: markWord(move.mark), preferred: movePreferred(move) })}`)));
  }
}

// The replay shows the position after event `at`: the bot's preferred move for the move that
// followed it, on the board and in words. `at` null: the replay is back at the present.
export function showPreferred(at) {
  const told = $('analysis-preferred');
  if (!told) return;
  const next = at === null ? undefined : state.bySeq.get(at + 1);
  if (!next || !next.preferred) {
    told.hidden = true;
    return;
  }
  const tokens = new Set(tokensOf(next.preferred));
  let marked = 0;
  for (const part of document.querySelectorAll('#board [data-target]')) {
    if (tokens.has(part.dataset.target)) {
      part.classList.add('preferred');
      marked += 1;
    }
  }
  // Some moves touch no board part (a choice, a pass): then the words alone tell it.
  const where = marked ? ` ${_('(marked on the board)')}` : '';
  const same = next.preferred_text === next.text;
  const played = moveNodes(next.words, next.text);
  const preferred = moveNodes(next.preferred_words, next.preferred_text);
  told.replaceChildren(
    ...withNodes(_('Here %(name)s played %(move)s', { name: state.seatName(next.seat), move: MARK('move') }), { move: played }),
    `${next.mark ? ` (${markWord(next.mark)})` : ''}; `,
    ...(same ? [_('the bot preferred the same move.')] : withNodes(_('the bot preferred %(move)s%(where)s.', { move: MARK('move'), where }), { move: preferred })));
  told.hidden = false;
}

// A move in a sentence: its words and, smaller, its notation where that reads otherwise, as on
// the table's buttons.
function moveNodes(words, notation) {
  return !words || words === notation ? [notation] : [words, ' ', el('span', { class: 'notation', lang: 'en' }, notation)];
}

// A translated sentence whose values are nodes: each is given to the translation as a marker
// (`MARK`), and the sentence is cut there, so the words around it stay the translator's.
const MARK = (key) => `\u0000${key}\u0000`;
function withNodes(sentence, nodes) {
  return sentence.split(/\u0000(\w+)\u0000/).flatMap((part, index) => (index % 2 ? nodes[part] : part ? [part] : []));
}
