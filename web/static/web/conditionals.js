// Conditional moves on the game page: while the opponent is to move, "What if…" lets the player
// pick a line on a board of the imagined position ("if they play X, I play Y", and on), then
// queue it; the queued lines are listed with a cancel button. The positions come from the API's
// preview (the server checks each line: two players, no chance, no secrets); like the rest of
// the page it knows no rules. Only this player ever sees their lines.
import { api, el, replaceIfChanged, ApiError } from './api.js';
import { Pointer } from './pointing.js';
import { widenTargets } from './boards/targets.js';
import { _ } from './i18n.js';

const $ = (id) => document.getElementById(id);
const state = { gameId: null, seat: null, draw: null, line: [], preview: null, pointer: null, open: false, seq: null, busy: false };

// Called by game.js after each load of the game.
export function showConditionals(game, draw) {
  const box = $('whatif-box');
  if (!box) return;
  const waiting = game.status === 'active' && game.your_seat !== null && game.players === 2
    && !game.to_act.includes(game.your_seat);
  box.hidden = !(waiting || (game.your_seat !== null && game.status === 'active' && game.players === 2));
  if (box.hidden) return;
  state.gameId = game.id;
  state.seat = game.your_seat;
  state.draw = draw;
  $('whatif-start').hidden = !waiting;
  if (state.seq !== game.seq) { // the game moved on: the line being picked starts afresh
    state.seq = game.seq;
    closeWhatIf();
  }
  listLines();
}

// The lines as the server holds them. Only the newest reading is shown (an older answer arriving
// late would bring back a line already gone). A line from before the game's last move is one the
// server has still to follow or drop (it does so just after the move): it is not shown, and the
// list is read again until the server has caught up.
let readings = 0;
let recheck = null;
async function listLines() {
  const reading = ++readings;
  clearTimeout(recheck);
  try {
    const { lines } = await api('GET', `/games/${state.gameId}/conditionals/`);
    if (reading !== readings) return;
    const current = lines.filter((line) => line.after_seq >= state.seq);
    state.lines = current;
    replaceIfChanged($('whatif-lines'), ...current.map((line) => el('li', { 'data-line': line.id },
      el('span', {}, line.moves.map((step) => (step.seat === state.seat ? _('I play %(move)s', { move: step.words ?? step.text ?? '?' }) : _('if they play %(move)s', { move: step.words ?? step.text ?? '?' }))).join(', ')),
      ' ',
      el('button', { type: 'button', class: 'whatif-cancel', onclick: () => cancel(line.id) }, _('Cancel')))));
    $('whatif-none').hidden = current.length > 0;
    if (current.length < lines.length) recheck = setTimeout(listLines, 1000);
  } catch (error) {
    if (reading === readings) $('whatif-note').textContent = _('Could not read your lines: %(why)s', { why: error.message });
  }
}

async function cancel(id) {
  $('whatif-lines').querySelector(`[data-line="${CSS.escape(id)}"]`)?.remove(); // gone from the list at once
  $('whatif-none').hidden = $('whatif-lines').children.length > 0;
  try {
    await api('DELETE', `/games/${state.gameId}/conditionals/${id}/`);
  } catch (error) {
    if (!(error instanceof ApiError && error.code === 'conditional_not_found')) $('whatif-note').textContent = _('Not cancelled: %(why)s', { why: error.message });
  }
  listLines();
}

function closeWhatIf() {
  state.open = false;
  state.line = [];
  state.preview = null;
  $('whatif-pick').hidden = true;
  $('whatif-start').textContent = _('What if…');
}

// While the next position is asked for, the board and the list still show the last one: a
// click on them then would extend a line that is no longer the one drawn, so none is taken.
function setBusy(busy) {
  state.busy = busy;
  $('whatif-pick').setAttribute('aria-busy', String(busy));
}

async function look() {
  setBusy(true);
  try {
    state.preview = await api('POST', `/games/${state.gameId}/conditionals/preview/`, { moves: state.line });
  } catch (error) {
    $('whatif-note').textContent = `${error.message} (${error.code ?? 'error'})`;
    state.line.pop();
    if (!state.preview) closeWhatIf();
    return;
  } finally {
    setBusy(false);
  }
  $('whatif-note').textContent = '';
  showPick();
}

function showPick() {
  const { preview } = state;
  const mine = preview.to_act === state.seat;
  $('whatif-pick').hidden = false;
  $('whatif-line').textContent = state.line.length
    ? preview.line.map((step, i) => `${i + 1}. ${step.seat === state.seat ? _('I play %(move)s', { move: state.texts[i] }) : _('they play %(move)s', { move: state.texts[i] })}`).join('  ')
    : _('Pick the move you expect from your opponent.');
  $('whatif-prompt').textContent = preview.to_act === null ? _('The game would be over here.')
    : mine ? _('Now pick your reply.') : _('Pick the move you expect from your opponent.');
  $('whatif-board-text').textContent = preview.board;
  const endsMine = preview.line.length > 0 && preview.line[preview.line.length - 1].seat === state.seat;
  $('whatif-queue').disabled = !endsMine;
  $('whatif-undo').disabled = state.line.length === 0;
  const board = state.draw(preview.view, { seat: state.seat, moves: preview.moves });
  const parts = board ? [...board.querySelectorAll('[data-target]')] : [];
  state.pointer = preview.moves.length ? new Pointer(preview.moves, new Set(parts.map((part) => part.dataset.target))) : null;
  drawBoard();
  $('whatif-moves-box').open = preview.moves.length <= 12 || !state.pointer || state.pointer.next().size === 0;
  replaceIfChanged($('whatif-moves'), ...preview.moves.map((move, index) => el('li', {},
    el('button', { type: 'button', class: 'move', 'data-index': index }, ...previewLabel(preview, index)))));
}

// A move's button: its words in the page's language, and beside them, smaller, its notation where
// that differs (as on the table).
function previewLabel(preview, index) {
  const notation = preview.notation[index];
  const said = preview.words?.[index] ?? notation;
  return said === notation ? [notation] : [said, ' ', el('span', { class: 'notation', lang: 'en' }, notation)];
}

// The board is drawn again after each pick, but only the parts that changed are replaced
// (replaceIfChanged); clicks are taken on the box, so a kept part answers for the line as it is now.
function drawBoard() {
  const { preview, pointer } = state;
  const board = state.draw(preview.view, { seat: state.seat, moves: preview.moves });
  if (!board) { $('whatif-board').replaceChildren(); return; }
  const next = pointer ? pointer.next() : new Set();
  for (const part of board.querySelectorAll('[data-target]')) {
    const target = part.dataset.target;
    if (pointer && pointer.picked.includes(target)) part.classList.add('picked');
    if (!next.has(target)) continue;
    part.classList.add('pointable');
    part.setAttribute('role', 'button');
    part.setAttribute('tabindex', '0');
  }
  if (replaceIfChanged($('whatif-board'), board)) widenTargets(board);
}

function pick(target) {
  const { pointer } = state;
  if (state.busy || !pointer || !pointer.pick(target)) return;
  const left = pointer.candidates();
  if (left.length === 1) add(left[0]);
  else drawBoard();
}

function pointedAt(event) {
  return event.target.closest?.('#whatif-board .pointable[data-target]') ?? null;
}

function add(index) {
  if (state.busy) return;
  state.texts = [...(state.texts ?? []).slice(0, state.line.length), state.preview.words?.[index] ?? state.preview.notation[index]];
  state.line.push(state.preview.moves[index]);
  look();
}

async function queue() {
  const wanted = JSON.stringify(state.line);
  if ((state.lines ?? []).some((line) => JSON.stringify(line.moves.map((step) => step.move)) === wanted)) {
    $('whatif-note').textContent = _('You have queued this line already.');
    return;
  }
  try {
    await api('POST', `/games/${state.gameId}/conditionals/`, { moves: state.line });
  } catch (error) {
    $('whatif-note').textContent = `${_('Refused: %(why)s', { why: error.message })} (${error.code ?? 'error'})`;
    return;
  }
  $('whatif-note').textContent = _('Queued: it plays only if your opponent moves as the line says.');
  closeWhatIf();
  listLines();
}

$('whatif-start')?.addEventListener('click', () => {
  if (state.open) { closeWhatIf(); return; }
  state.open = true;
  state.line = [];
  state.texts = [];
  $('whatif-start').textContent = _('Close what if');
  look();
});
$('whatif-undo')?.addEventListener('click', () => { if (!state.busy) { state.line.pop(); look(); } });
$('whatif-board')?.addEventListener('click', (event) => { const part = pointedAt(event); if (part) pick(part.dataset.target); });
$('whatif-board')?.addEventListener('keydown', (event) => {
  const part = pointedAt(event);
  if (part && (event.key === 'Enter' || event.key === ' ')) { event.preventDefault(); pick(part.dataset.target); }
});
$('whatif-moves')?.addEventListener('click', (event) => {
  const button = event.target.closest?.('button.move[data-index]');
  if (button) add(Number(button.dataset.index));
});
$('whatif-queue')?.addEventListener('click', queue);
