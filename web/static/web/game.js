// The game page, a game table: the status line (the rules' prompt, or whom the game waits for),
// a panel per seat with its clock, the board with the last move marked, moves by pointing
// (pointing.js) or from the list, the text board, the log with a replay slider, and live updates
// from the stream. It knows no rules: what it says comes from the rules' presentation and the API.
import { api, el, whenText, replaceIfChanged, ApiError, TIME_IS_UP } from './api.js';
import { Pointer } from './pointing.js';
import { rendererFor, legendFor } from './boards/index.js';
import { widenTargets, widenOnResize } from './boards/targets.js';
import { tell, showTurn, followingGame, ownGameTurn } from './notify.js';
import { showConditionals } from './conditionals.js';
import { showAnalysis, showPreferred } from './analysis.js';
import { onAccountNews, streamSlot } from './shared_stream.js';
import { _, ngettext, numberText, word } from './i18n.js';

const root = document.getElementById('game');
const gameId = Number(root.dataset.game);
const streamBase = root.dataset.stream;
const draw = rendererFor(root.dataset.rules);
const $ = (id) => document.getElementById(id);
const invitation = new URLSearchParams(window.location.search).get('invitation') ?? ''; // a private game's link
const seen = (path) => (invitation ? `${path}${path.includes('?') ? '&' : '?'}invitation=${encodeURIComponent(invitation)}` : path);

const page = { game: null, legal: null, log: null, logAs: null, pointer: null, chosen: null, replayAt: null, note: '', mine: null, sentFrom: new Set(), drawn: false, newest: 0, askedFor: 0 };
followingGame(gameId);

// The text board is read while its box is open (and when it opens), not at every refresh: where
// the board is drawn it stays shut until the player opens it. The page's HTML came with it.
function readTextBoard() {
  if (page.game === null || !$('text-board-box').open) return Promise.resolve(null);
  return fetch(`/api${seen(`/games/${gameId}/board.txt`)}`, { credentials: 'same-origin' }).then((r) => (r.ok ? r.text() : null)).catch(() => null);
}
$('text-board-box').addEventListener('toggle', async () => {
  const board = await readTextBoard();
  if (board !== null) $('text-board').textContent = board;
});

// One load at a time: news arriving during a load asks for one more after it, which finds
// nothing new if the first load already showed it (and so keeps the player's picks).
let loading = null;
let loadAgain = false;
function refresh(note = null) {
  if (loading) {
    loadAgain = true;
    if (note !== null) page.note = note;
    return loading;
  }
  loading = load(note).finally(() => {
    loading = null;
    if (loadAgain) {
      loadAgain = false;
      refresh();
    }
  });
  return loading;
}

// `note` stays shown until the player's next move, whatever news comes meanwhile.
async function load(note) {
  if (note !== null) page.note = note;
  const game = await api('GET', seen(`/games/${gameId}/`));
  page.newest = Math.max(page.newest, game.seq);
  if (page.game && game.seq === page.game.seq && game.status === page.game.status && note === null) {
    page.game = game; // no news (a stream's echo of what this page already shows): keep the player's picks
    showStatus();
    if (game.status === 'open') showActions(); // who has joined the waiting room
    return;
  }
  const mine = game.your_seat !== null && game.to_act.includes(game.your_seat) && game.status === 'active';
  // The game's answer holds the reader's legal moves where its seat acts: no request of their own.
  const legal = { seq: game.seq, seat: game.your_seat, moves: game.moves, notation: game.notation, words: game.words };
  // The log only grows at its end: the events this page shows are asked for again only when what
  // the caller may see of them can change (a seat taken or left, the end revealing every secret).
  const as = logSeenAs(game);
  const from = page.log !== null && page.logAs === as ? page.log.at(-1)?.seq ?? 0 : 0;
  const [log, board] = await Promise.all([
    api('GET', seen(`/games/${gameId}/events/?notation=true${from ? `&after=${from}` : ''}`)),
    readTextBoard(),
  ]);
  const pending = note === null ? pendingChoice() : null; // taken now: the player may have picked during the fetch
  if (page.mine === false && mine) tell(gameId, _('%(title)s (game %(id)s): %(prompt)s', { title: root.dataset.title, id: gameId, prompt: game.presentation.prompt ?? _('your move') }));
  page.mine = mine;
  page.game = game;
  page.legal = legal;
  page.log = from ? [...page.log, ...log.events] : log.events;
  page.logAs = as;
  page.chosen = null;
  page.replayAt = null;
  if (board !== null) $('text-board').textContent = board;
  showStatus();
  showMoves(pending);
  showLog(page.log);
  showActions();
  showFairness(page.log);
  showConditionals(game, draw);
  showAnalysis(game, { seatName, seen });
}

// What the events' form depends on beyond the events: whose seat reads them, and whether the
// game has ended (then every seat's secret choices are shown).
function logSeenAs(game) {
  return `${game.your_seat}:${game.status === 'finished'}`;
}

function seatName(seat) {
  return playerName(page.game.seats.find((taken) => taken.seat === seat));
}

// A seat's player as the API names one (a seat of the game, an event's `by`).
function playerName(player) {
  return player?.username ?? (player?.bot ? _('bot %(name)s', { name: player.bot.name }) : _('open seat'));
}

// The name before a seat's move in the log: its player then (`by`), not the seat's player now. A
// system event's words name its player themselves ("ann takes a seat"). (web/table.py's log_lines.)
function moverName(event) {
  if (event.seat === null || event.kind === 'system') return null;
  return event.by ? playerName(event.by) : _('seat %(seat)s', { seat: event.seat });
}

function logLine(event) {
  const mover = moverName(event);
  return mover ? `${mover}: ${event.text}` : event.text;
}

// Every seat of the game, an open one too (the game lists the seats taken).
function allSeats(game) {
  return Array.from({ length: game.players }, (_, index) => game.seats.find((seat) => seat.seat === index) ?? { seat: index, username: null, bot: null });
}

function names(seats) {
  const told = seats.map((seat) => (seat === page.game.your_seat ? _('you') : seatName(seat)));
  if (told.length < 2) return told.join('');
  return _('%(some)s and %(last)s', { some: told.slice(0, -1).join(', '), last: told.at(-1) });
}

// "You won 27-10: the last glacier melted" (kept in step with web/table.py's result_words).
function resultWords(game) {
  const result = game.result ?? {};
  const winners = result.winners ?? [];
  let scores = game.presentation.panels.map((panel) => panel.score);
  if (!scores.length || scores.some((score) => score === null)) scores = result.scores ?? [];
  const order = [...winners, ...scores.map((_, seat) => seat).filter((seat) => !winners.includes(seat))]; // the winner's score first
  const shown = order.filter((seat) => seat < scores.length).map((seat) => Number(scores[seat]));
  // "27-10", but "0 to -1" where a score is negative: "0--1" reads as a typo.
  const told = scores.length > 1 ? shown.join(shown.some((score) => score < 0) ? _(' to ') : '-') : '';
  const reason = game.presentation.ending || word(result.reason);
  let head = _('Nobody won');
  if (winners.length > 1 && winners.length === game.seats.length) head = _('A draw');
  else if (winners.includes(game.your_seat)) {
    head = winners.length === 1 ? _('You won') : _('You shared the win with %(names)s', { names: names(winners.filter((w) => w !== game.your_seat)) });
  } else if (winners.length) head = _('%(names)s won', { names: names(winners) });
  return told ? `${head} ${told}: ${reason}` : `${head}: ${reason}`;
}

const STALE_NOTE = _('The game moved on before your move arrived: here is the position now; choose again');

// As on a game site's status bar: the rules' prompt when this seat is to act, else who must move
// (kept in step with web/table.py's status_line).
function statusLine(game) {
  if (game.status === 'finished') return resultWords(game);
  if (game.status === 'open') return openWords(game);
  const others = game.to_act.filter((seat) => seat !== game.your_seat);
  const prompt = game.presentation.prompt;
  if (prompt) return others.length ? _('%(prompt)s (%(names)s must move too)', { prompt, names: names(others) }) : prompt;
  return others.length ? _('%(names)s must move', { names: names(others) }) : _('Waiting');
}

function openWords(game) {
  const open = allSeats(game).filter((seat) => !seat.username && !seat.bot).length;
  return ngettext('Waiting for %(count)s more player to join', 'Waiting for %(count)s more players to join', open);
}

function showStatus() {
  const game = page.game;
  const line = statusLine(game);
  // A move refused as stale in a game that has just ended is no call to choose again: the result, then why.
  if (game.status === 'finished' && page.note === STALE_NOTE) {
    $('status').textContent = `${line} · ${_('The game ended before your move arrived')}`;
  } else {
    $('status').textContent = page.note ? `${page.note} · ${line}` : line;
  }
  $('status').classList.toggle('your-turn', Boolean(game.presentation.prompt));
  $('status').classList.toggle('finished', game.status === 'finished');
  const yourTurn = Boolean(game.presentation.prompt) && game.status === 'active';
  ownGameTurn(yourTurn);
  showTurn(yourTurn);
  showPanels();
  tickClocks();
}

// A panel per seat: who sits there, the game's name and colour for the seat, score and its
// parts, resources, notes, whether it must act, and its clock.
function showPanels() {
  const game = page.game;
  const panels = game.presentation.panels;
  $('panels').replaceChildren(...allSeats(game).map((seat) => {
    const shown = panels[seat.seat] ?? { name: _('seat %(seat)s', { seat: seat.seat }), colour: 'gray', score: null, score_parts: [], resources: [], notes: [], out: false };
    root.style.setProperty(`--seat-${seat.seat}`, shown.colour);
    const acting = game.status === 'active' && game.to_act.includes(seat.seat);
    const clock = clockOf(game, seat.seat);
    const items = [...shown.score_parts, ...shown.resources];
    const standIn = game.stand_ins.find((s) => s.seat === seat.seat);  // its time ran out: a bot plays it
    return el('li', { class: `panel${acting ? ' acting' : ''}${shown.out ? ' out' : ''}`, 'data-seat': seat.seat },
      el('div', { class: 'panel-head' },
        swatch(shown.colour),
        el('strong', { class: 'panel-player' }, `${seatName(seat.seat)}${seat.seat === game.your_seat ? ` ${_('(you)')}` : ''}`), ' ',
        el('span', { class: 'panel-name' }, shown.name),
        seat.bot ? el('span', { class: 'badge' }, _('bot')) : null,
        standIn ? el('span', { class: 'badge stand-in' }, _('played by bot %(bot)s', { bot: standIn.bot })) : null,
        acting ? el('span', { class: 'badge to-act' }, _('to act')) : null,
        shown.score !== null ? el('span', { class: 'panel-score' }, el('span', { class: 'sr-only' }, `${_('score')} `), numberText(shown.score)) : null),
      items.length ? el('dl', { class: 'panel-items' }, ...items.map((part) => el('div', {}, el('dt', {}, part.label), el('dd', {}, numberText(part.value))))) : null,
      shown.notes.length ? el('p', { class: 'panel-notes' }, shown.notes.join('; ')) : null,
      el('span', { class: 'clock', 'data-due': clock.due, 'data-left': clock.left }));
  }));
}

function swatch(colour) {
  const ns = 'http://www.w3.org/2000/svg';
  const icon = document.createElementNS(ns, 'svg');
  icon.setAttribute('class', 'swatch');
  icon.setAttribute('viewBox', '0 0 20 20');
  icon.setAttribute('aria-hidden', 'true');
  const dot = document.createElementNS(ns, 'circle');
  for (const [name, value] of Object.entries({ cx: 10, cy: 10, r: 8, fill: colour })) dot.setAttribute(name, value);
  icon.append(dot);
  return icon;
}

// Every seat's clock: the running one counts down to its deadline; a stopped one shows what it
// has left (a seat that is not to act: its time for a move, or what its bank holds).
const SECONDS_OF = { step: (control) => control.seconds, correspondence: (control) => control.days * 86400 };
function clockOf(game, seat) {
  const deadline = game.deadlines.find((d) => d.seat === seat);
  if (deadline) return { due: deadline.stopped ? '' : (deadline.due_at ?? ''), left: deadline.seconds_left };
  const control = game.time_control;
  if (!control || game.status !== 'active') return { due: '', left: '' };
  const left = SECONDS_OF[control.type]?.(control) ?? game.banks?.[seat] ?? (control.initial_hours ?? 0) * 3600;
  return { due: '', left };
}

// A running clock counts down; a stopped one (another seat's, or a paused game) shows what is left.
function tickClocks() {
  for (const clock of document.querySelectorAll('#panels .clock')) {
    if (clock.dataset.due) {
      const left = whenText(clock.dataset.due);
      clock.textContent = left === TIME_IS_UP ? _('clock: time is up') : _('clock: %(left)s left', { left });
      clock.classList.toggle('low', new Date(clock.dataset.due) - Date.now() < 30000);
      clock.classList.replace('stopped', 'running') || clock.classList.add('running');
    } else if (Number.isFinite(Number.parseFloat(clock.dataset.left))) { // the server's panels have no time yet: '' or none
      const seconds = Math.max(0, Math.round(Number(clock.dataset.left)));
      clock.textContent = _('clock stopped: %(left)s left', { left: whenText(new Date(Date.now() + seconds * 1000).toISOString()) || '0s' });
      clock.classList.replace('running', 'stopped') || clock.classList.add('stopped');
    } else clock.textContent = '';
  }
}

function showBoard(view, readOnly = false) {
  const next = page.pointer && !readOnly ? page.pointer.next() : new Set();
  const board = draw(view, { seat: page.game.your_seat, moves: readOnly ? [] : page.legal.moves });
  const figure = $('board-figure');
  if (!board) { figure.hidden = true; return; }
  figure.hidden = false;
  if (!page.drawn) $('text-board-box').open = false; // one click away (and all there is without JavaScript), as the player leaves it after
  page.drawn = true;
  const touched = new Set(readOnly ? [] : page.game.presentation.touched);
  for (const part of board.querySelectorAll('[data-target]')) {
    const target = part.dataset.target;
    if (touched.has(target)) {
      part.classList.add('touched');
      part.setAttribute('aria-label', `${part.getAttribute('aria-label')} ${_('(changed by the last move)')}`);
    }
    if (next.has(target)) {
      part.classList.add('pointable');
      part.setAttribute('role', 'button');
      part.setAttribute('tabindex', '0');
      const choose = () => {
        // A part of a board replaced meanwhile, or no longer a next step: the click means nothing now.
        if (!part.isConnected || !page.pointer?.pick(target)) return;
        afterPick();
        focusBoard();
      };
      part.addEventListener('click', choose);
      part.addEventListener('keydown', (event) => { if (event.key === 'Enter' || event.key === ' ') { event.preventDefault(); choose(); } });
    }
    if (page.pointer && page.pointer.picked.includes(target) && !readOnly) part.classList.add('picked');
  }
  if (replaceIfChanged($('board'), board)) widenTargets(board); // a kept board keeps its hit areas
  $('board-caption').textContent = readOnly ? _('the view after event %(seq)s', { seq: page.replayAt }) : '';
  showLegend();
}

// After a pick by keyboard, keep the keyboard on the board (or on the confirm button).
function focusBoard() {
  const target = document.querySelector('#confirm') ?? document.querySelector('.board-svg .pointable');
  target?.focus();
}

function showLegend() {
  const legend = legendFor(root.dataset.rules);
  $('legend-box').hidden = legend.length === 0;
  // A mark is words, or a function drawing the piece's picture afresh (a node sits in one place only).
  replaceIfChanged($('legend'), ...legend.map(([mark, meaning]) => el('div', {}, el('dt', {}, typeof mark === 'function' ? mark() : mark), el('dd', {}, meaning))));
}

// The player's picks and chosen move, to carry over news that leaves them legal (a seat acting
// at the same time, a draw offer): a redraw must not take away what the player is clicking.
function pendingChoice() {
  // A move on its way is no longer a choice to keep; one chosen since, in a newer position, is.
  if (!page.pointer || page.sentFrom.has(page.legal)) return null;
  return { picked: [...page.pointer.picked], move: page.chosen === null ? null : page.legal.moves[page.chosen] };
}

function keepPending(pending) {
  if (!pending || !page.pointer) return;
  if (!pending.picked.every((token) => page.pointer.pick(token))) page.pointer.reset();
  if (pending.move === null) return;
  const was = JSON.stringify(pending.move);
  const index = page.legal.moves.findIndex((move) => JSON.stringify(move) === was);
  if (index >= 0) page.chosen = index;
}

function showMoves(pending = null) {
  const { moves } = page.legal;
  $('moves-panel').hidden = moves.length === 0;
  const probe = draw(page.game.view, { seat: page.game.your_seat, moves });
  const parts = probe ? [...probe.querySelectorAll('[data-target]')] : [];
  page.pointer = moves.length ? new Pointer(moves, new Set(parts.map((part) => part.dataset.target))) : null;
  keepPending(pending);
  if (moves.length === 1) page.chosen = 0; // a forced move: one tap plays it
  replaceIfChanged($('moves'), ...moves.map((move, index) => el('li', {},
    el('button', { type: 'button', class: 'move', 'data-index': index, onclick: () => choose(index) }, ...moveLabel(index)))));
  // The list is open when the board cannot point at a move, or the moves are few.
  $('all-moves').open = moves.length <= 12 || !page.pointer || page.pointer.next().size === 0;
  afterPick();
}

function afterPick() {
  if (!page.pointer) {
    $('choice').replaceChildren();
    $('picking').textContent = '';
    showBoard(page.game.view);
    return;
  }
  const candidates = page.pointer.candidates();
  const { moves } = page.legal;
  const picked = page.pointer.picked;
  const canPoint = page.pointer.next().size > 0;
  if (page.chosen === null && candidates.length === 1 && picked.length) page.chosen = candidates[0];
  const forced = moves.length === 1;
  $('picking').textContent = forced ? _('Only one move is possible: %(move)s', { move: moveWords(0) })
    : page.chosen !== null ? _('Your move: %(move)s', { move: moveWords(page.chosen) })
      : picked.length ? ngettext('Picked %(picked)s; %(count)s move left', 'Picked %(picked)s; %(count)s moves left', candidates.length, { picked: picked.join(' → ') })
        : (canPoint ? _('Point at the board (or press Tab and Enter), or pick from the list.') : _('Pick a move from the list.'));
  const buttons = [];
  if (page.chosen !== null) {
    buttons.push(el('button', { type: 'button', id: 'confirm', class: 'primary', onclick: submit, title: notationBeside(page.chosen) },
      _('Play %(move)s', { move: moveWords(page.chosen) })));
  } else if (picked.length && !canPoint) {
    buttons.push(...candidates.map((index) => el('button', { type: 'button', class: 'candidate', 'data-index': index, onclick: () => choose(index) }, ...moveLabel(index))));
  } else if (!picked.length) {
    buttons.push(...offBoard().map((index) => el('button', { type: 'button', class: 'candidate', 'data-index': index, onclick: () => choose(index) }, ...moveLabel(index))));
  }
  if (!forced && (picked.length || page.chosen !== null)) {
    buttons.push(el('button', { type: 'button', id: 'cancel', onclick: () => { page.pointer.reset(); page.chosen = null; afterPick(); } }, _('Start over')));
  }
  replaceIfChanged($('choice'), ...buttons); // the confirm bar stays while its move is still the one chosen
  $('choice').hidden = buttons.length === 0;
  showBoard(page.game.view);
}

// The moves the board cannot point at (a pass, a roll's "stay", a whole game without a drawn
// board), as buttons in the status bar where they are few; many stay in the list of moves.
const BAR_MOST = 8;
function offBoard() {
  const found = page.pointer.paths.flatMap((path, index) => (path.length === 0 ? [index] : []));
  return found.length <= BAR_MOST ? found : [];
}

// A move in the reader's words (the server describes it in the page's language); in English
// these are the notation itself.
function moveWords(index) {
  return page.legal.words?.[index] ?? page.legal.notation[index];
}

// The notation where it reads otherwise than the words: what a mail reply types for this move.
function notationBeside(index) {
  const notation = page.legal.notation[index];
  return notation !== moveWords(index) ? notation : null;
}

// A move's button: its words, and beside them, smaller, its notation where that differs.
function moveLabel(index) {
  const notation = notationBeside(index);
  return notation === null ? [moveWords(index)] : [moveWords(index), ' ', el('span', { class: 'notation', lang: 'en' }, notation)];
}

function choose(index) {
  page.chosen = index;
  afterPick();
  $('confirm')?.focus();
}

async function submit() {
  const sent = page.legal;
  const move = sent.moves[page.chosen];
  if (move === undefined) { afterPick(); return; } // a bar left from a choice that is gone: nothing to send
  $('confirm').disabled = true;
  page.note = '';
  page.sentFrom.add(sent); // the positions moves are on their way from (a newer one's may be sent before this answer)
  let shown = false;
  try {
    const answer = await api('POST', `/games/${gameId}/moves/`, { move, expected_seq: sent.seq });
    // Read already, or being read for news that came first (a slow answer): no second read.
    shown = Math.max(page.newest, page.askedFor) >= answer.game.seq;
    page.newest = Math.max(page.newest, answer.game.seq); // its echo on the account stream is no news
    // The stream may have drawn the position after this move, and the player chosen in it, before
    // this answer came: that choice is theirs to keep. Otherwise the move played is no choice any
    // more, and until the position after it arrives there is none to make.
    if (page.legal === sent) {
      page.legal = { moves: [], notation: [], words: [], seq: sent.seq };
      page.chosen = null;
      showMoves();
    }
  } catch (error) {
    if (error instanceof ApiError && error.code === 'stale_seq') {
      await refresh(STALE_NOTE);
    } else if (page.legal === sent) {
      $('picking').textContent = _('Refused: %(why)s', { why: error.message });
      $('confirm').disabled = false;
    } else { // the page has moved on to a newer position: say so without taking the player's new choice
      page.note = _('Your move was refused: %(why)s', { why: error.message });
      showStatus();
    }
    return;
  } finally {
    page.sentFrom.delete(sent);
  }
  if (!shown) await refresh().catch((error) => { $('status').textContent = _('Your move is in; the page could not show it: %(why)s', { why: error.message }); });
}

function showLog(events) {
  const log = $('log');
  // A move in the reader's words; its notation (what a mail reply types), where it reads otherwise, on hover.
  log.replaceChildren(...events.map((event) => el('li', { value: event.seq, 'data-seq': event.seq,
    title: event.notation && event.notation !== event.text ? event.notation : null },
  logLine(event))));
  log.scrollTop = log.scrollHeight; // the newest move in sight
  const slider = $('replay-at');
  slider.max = page.game.seq;
  slider.value = page.game.seq;
  $('replay').hidden = page.game.seq < 2;
  $('replay-label').textContent = _('now (event %(seq)s)', { seq: page.game.seq });
}

function showFairness(events) {
  $('seed-hash').textContent = page.game.seed_sha256 ?? '';
  $('seed').textContent = page.game.seed ?? _('published when the game ends');
  $('last-hash').textContent = events.at(-1)?.hash ?? '';
}

// The replay goes straight to where the slider is: while one position is on its way, clicks and
// drags only move the slider; the position asked for next is the slider's, not each one passed.
const replay = { wanted: null, asking: false };
function replayTo(at) {
  const bounded = Math.max(1, Math.min(page.game.seq, at));
  $('replay-at').value = bounded;
  replay.wanted = bounded;
  $('replay-label').textContent = bounded === page.game.seq ? _('now (event %(seq)s)', { seq: bounded }) : _('after event %(seq)s of %(last)s', { seq: bounded, last: page.game.seq });
  if (!replay.asking) showReplay();
}

async function showReplay() {
  replay.asking = true;
  try {
    while (replay.wanted !== null) {
      const at = replay.wanted;
      if (at === page.game.seq) {
        replay.wanted = null;
        page.replayAt = null;
        showBoard(page.game.view);
        showPreferred(null);
        return;
      }
      const state = await api('GET', seen(`/games/${gameId}/state/?at=${at}`)).catch(() => null);
      if (replay.wanted !== at) continue; // the slider moved on meanwhile: show where it is now
      replay.wanted = null;
      if (state === null) return;
      page.replayAt = at;
      showBoard(state.view, true);
      showPreferred(at);
    }
  } finally {
    replay.asking = false;
  }
}

function showActions() {
  const game = page.game;
  const actions = [];
  const signedIn = document.querySelector('nav a[href="/account/"]') !== null;
  if (game.status === 'open' && game.your_seat === null && signedIn) {
    actions.push(el('button', { type: 'button', id: 'join', onclick: async () => { await api('POST', `/games/${gameId}/join/`, invitation ? { invitation } : undefined); await refresh(); } }, _('Join this game')));
  }
  if (game.stand_ins.some((s) => s.seat === game.your_seat)) {
    actions.push(el('button', { type: 'button', id: 'return', onclick: async () => { await api('POST', `/games/${gameId}/return/`); await refresh(); } }, _('Take my seat back from the stand-in')));
  }
  if (game.status === 'open') actions.push(waitingRoom(game));
  if (game.status === 'finished' && game.your_seat !== null && signedIn) actions.push(el('div', { id: 'rematch', 'aria-live': 'polite' }));
  actions.push(...lifeActions(game));
  if (game.your_seat !== null && signedIn && game.status !== 'finished') actions.push(mailChoice());
  $('actions').replaceChildren(...actions);
  if ($('rematch')) showRematch();
}

// A rematch at the end: the same game, options and clock, the seats swapped. One player offers
// it; the other accepts with one click; both are then shown the way to the new game.
let rematchSeen = '';
async function showRematch() {
  const box = $('rematch');
  if (!box) return;
  const state = await api('GET', seen(`/games/${gameId}/rematch/`)).catch(() => null);
  if (!state || JSON.stringify(state) === rematchSeen && box.childElementCount) return;
  rematchSeen = JSON.stringify(state);
  const act = (action) => async () => {
    try {
      const made = await api('POST', seen(`/games/${gameId}/rematch/`), { action });
      if (made.game !== null && action === 'accept') window.location.href = `/games/${made.game}/`;
      else showRematch();
    } catch (error) { box.textContent = _('Rematch: %(why)s', { why: error.message }); }
  };
  const you = page.game.your_seat;
  if (state.game !== null) {
    box.replaceChildren(el('a', { id: 'rematch-game', class: 'button', href: `/games/${state.game}/` }, _('Go to the rematch')));
  } else if (state.offered_by === you) {
    box.replaceChildren(el('span', { id: 'rematch-offered' }, _('You offer a rematch (seats swapped); waiting for an answer.')));
  } else if (state.offered_by !== null) {
    box.replaceChildren(el('span', {}, `${_('%(name)s offers a rematch, seats swapped.', { name: seatName(state.offered_by) })} `),
      el('button', { type: 'button', id: 'accept-rematch', class: 'primary', onclick: act('accept') }, _('Accept the rematch')));
  } else {
    box.replaceChildren(el('button', { type: 'button', id: 'offer-rematch', onclick: act('offer') }, _('Offer a rematch')));
  }
}
setInterval(() => { if (page.game?.status === 'finished') showRematch(); }, 3000);

// The waiting room: the link that invites (a private game's carries its key), a button that
// copies it, and who has joined so far (the panels above show each seat, taken or open).
function waitingRoom(game) {
  const link = game.invitation_key ? `${window.location.origin}/games/${gameId}/?invitation=${game.invitation_key}` : `${window.location.origin}/games/${gameId}/`;
  const joined = game.seats.filter((seat) => seat.username || seat.bot).map((seat) => seatName(seat.seat));
  const open = game.players - joined.length;
  const copy = el('button', { type: 'button', id: 'copy-invitation', onclick: async () => {
    try {
      await navigator.clipboard.writeText(link);
      copy.textContent = _('Link copied');
    } catch { // no clipboard (an insecure origin): select the link for the player to copy
      window.getSelection().selectAllChildren($('invitation-code'));
      copy.textContent = _('Link selected: copy it');
    }
  } }, _('Copy the invitation link'));
  return el('section', { id: 'waiting-room', 'aria-labelledby': 'waiting-h' },
    el('h2', { id: 'waiting-h' }, _('Waiting room')),
    el('p', { id: 'invitation-link' }, game.invitation_key ? `${_('Private game: this link invites someone:')} ` : `${_('Invite someone with this link:')} `, el('code', { id: 'invitation-code' }, link)),
    copy,
    el('p', { id: 'joined' }, ngettext('Joined: %(joined)s; %(count)s seat open.', 'Joined: %(joined)s; %(count)s seats open.', open, { joined: joined.join(', ') || _('nobody yet') })));
}

// Resign, abort, draws, takebacks, leaving or cancelling an open game: the server says what is allowed.
function lifeActions(game) {
  const seated = game.your_seat !== null;
  const call = (id, text, path, body = undefined, ask = null) => el('button', { type: 'button', id, onclick: async () => {
    if (ask && !window.confirm(ask)) return;
    try {
      await api('POST', `/games/${gameId}/${path}/`, body);
      await refresh(_('%(action)s: done', { action: text }));
    } catch (error) { $('status').textContent = `${text}: ${error.message}`; }
  } }, text);
  const found = [];
  if (game.status === 'open' && seated) {
    found.push(game.you_created ? call('cancel-game', _('Cancel this game'), 'cancel', undefined, _('Cancel this game for everyone?'))
      : call('leave-game', _('Leave this game'), 'leave'));
  }
  if (game.status === 'active' && seated && game.playing.includes(game.your_seat)) {
    const offer = game.draw_offer;
    if (!offer) found.push(call('offer-draw', _('Offer a draw'), 'draw', { action: 'offer' }));
    else if (offer.by === game.your_seat) found.push(el('span', { id: 'draw-offered' }, `${_('You offer a draw.')} `));
    else if (!offer.accepted.includes(game.your_seat)) {
      found.push(el('span', { id: 'draw-offer' }, `${_('%(name)s offers a draw.', { name: seatName(offer.by) })} `),
        call('accept-draw', _('Accept the draw'), 'draw', { action: 'accept' }), call('decline-draw', _('Decline the draw'), 'draw', { action: 'decline' }));
    }
    const takeback = game.takeback_request;
    if (!takeback) found.push(call('ask-takeback', _('Take back my last move'), 'takeback', { action: 'request' }));
    else if (takeback.by === game.your_seat) found.push(el('span', { id: 'takeback-asked' }, `${_('You ask for a takeback.')} `));
    else if (!takeback.accepted.includes(game.your_seat)) {
      found.push(el('span', { id: 'takeback-request' }, `${_('%(name)s asks to take back a move.', { name: seatName(takeback.by) })} `),
        call('accept-takeback', _('Allow the takeback'), 'takeback', { action: 'accept' }), call('decline-takeback', _('Refuse the takeback'), 'takeback', { action: 'decline' }));
    }
    found.push(call('abort-game', _('Abort'), 'abort', undefined, _('Abort this game? (Only before every player has moved.)')),
      call('resign', _('Resign'), 'resign', undefined, _('Resign this game for good?')));
  }
  return found;
}

// This game's own mail cadence (play by email), beside the account's default.
let mailSettings = null;
function mailChoice() {
  const choices = { default: _("my account's choice"), immediate: _('a mail for each notice'), digest: _('in the daily digest'), none: _('no mail') };
  const select = el('select', { id: 'game-mail', onchange: async () => {
    mailSettings = await api('PATCH', '/mail/settings/', { games: { [gameId]: select.value } });
  } }, ...Object.entries(choices).map(([value, text]) => el('option', { value }, text)));
  const show = () => { select.value = mailSettings?.games?.[gameId] ?? 'default'; };
  if (mailSettings) show(); else api('GET', '/mail/settings/').then((settings) => { mailSettings = settings; show(); }).catch(() => {});
  return el('label', {}, `${_('Mail about this game:')} `, select);
}

// Live: the game's stream wakes the page; if the stream server cannot be reached, poll.
// News names the seq it is of where it can: news of a seq this page has read or written (its own
// move's echo, the game announced as the account stream connects) asks for nothing.
// News no later than a move still on its way is most likely that move's echo, which its answer
// makes old: it waits for the answer a little, never long (the stream may show the move first,
// when the answer is slow). News read meanwhile is remembered (`page.askedFor`): the answer then
// asks for no second read of what a load started after that news shows.
const ECHO_WAIT_MS = 1000;
let pending = null;
let pendingSeq = -Infinity;
let waitingSince = null;
function soon(seq = Infinity) {
  clearTimeout(pending);
  pendingSeq = Math.max(pendingSeq, seq);
  pending = setTimeout(() => {
    const sending = Math.max(-Infinity, ...[...page.sentFrom].map((sent) => sent.seq + 1));
    waitingSince ??= Date.now();
    if (pendingSeq <= sending && Date.now() - waitingSince < ECHO_WAIT_MS) { soon(pendingSeq); return; }
    const wanted = pendingSeq;
    pendingSeq = -Infinity;
    waitingSince = null;
    if (page.replayAt !== null || wanted <= page.newest) return;
    if (Number.isFinite(wanted)) page.askedFor = Math.max(page.askedFor, wanted);
    refresh().catch(() => {});
  }, 150);
}

// A player's page hears of its game on the account stream every page shares (shared_stream.js),
// with a slow poll as the net for what that stream does not tell (another seat's move that leaves
// this one waiting); a spectator's page takes a stream of the game's own if a slot is free, else polls.
async function follow() {
  const signedIn = document.querySelector('nav a[href="/account/"]') !== null;
  if (signedIn && page.game.your_seat !== null) {
    onAccountNews(streamBase, (item) => { if (item.data?.game === gameId) soon(item.data.seq ?? Infinity); });
    poll(5000);
    return;
  }
  const release = await streamSlot();
  if (!release) { poll(); return; }
  let failures = 0;
  const source = new EventSource(`${streamBase}/api${seen(`/games/${gameId}/stream/?after=${page.game.seq}`)}`, { withCredentials: true });
  const wake = (event) => {
    failures = 0;
    if (Number(event.lastEventId) > page.game.seq) soon(Number(event.lastEventId));
  };
  for (const kind of ['move', 'timeout', 'system', 'created']) source.addEventListener(kind, wake);
  source.onerror = () => {
    failures += 1;
    if (failures >= 3 || givenUp(source) || page.game.status === 'finished') {
      source.close();
      release();
      if (page.game.status !== 'finished') poll();
    }
  };
}

// Whether the browser gave a stream up for good: an answer that is no stream (a 503 while the
// stream process restarts, a proxy's error page) closes it at its first error, with no retry, so
// counting failures up to three would leave the page waiting for news forever.
function givenUp(source) {
  return source.readyState === EventSource.CLOSED;
}

function poll(every = 3000) {
  setInterval(async () => {
    if (page.game.status === 'finished') return;
    const log = await api('GET', seen(`/games/${gameId}/events/?after=${page.game.seq}`)).catch(() => null);
    if (log && log.events.length) soon(log.events.at(-1).seq);
  }, every);
}

// Chat: a side log beside the game's, players and spectators apart. Lines come on the chat's own
// stream; if the stream server cannot be reached, the page polls for them.
let chatAfter = 0;
function chatShow(line) {
  if (line.id <= chatAfter) return;
  chatAfter = line.id;
  $('chat').append(el('li', { 'data-channel': line.channel }, el('strong', {}, `${line.username}: `), line.text));
}

async function readChat() {
  const page = await api('GET', seen(`/games/${gameId}/chat/?after=${chatAfter}`)).catch(() => null);
  if (!page) return;
  $('chat-channel').textContent = page.channel === 'players' ? _('You talk with the players.') : _('You talk with the other spectators; the players read it after the game.');
  page.lines.forEach(chatShow);
}

async function followChat() {
  const release = await streamSlot();
  if (!release) { setInterval(readChat, 4000); return; } // every slot taken: poll
  let failures = 0;
  const source = new EventSource(`${streamBase}/api${seen(`/games/${gameId}/chat/stream/?after=${chatAfter}`)}`, { withCredentials: true });
  source.addEventListener('chat', (event) => { failures = 0; chatShow(JSON.parse(event.data)); });
  source.onerror = () => {
    failures += 1;
    if (failures >= 3 || givenUp(source)) { source.close(); release(); setInterval(readChat, 4000); }
  };
}

$('chat-form')?.addEventListener('submit', async (event) => {
  event.preventDefault();
  const text = $('chat-text').value.trim();
  if (!text) return;
  try {
    await api('POST', seen(`/games/${gameId}/chat/`), { text });
    $('chat-text').value = '';
  } catch (error) { $('chat-channel').textContent = _('Not sent: %(why)s', { why: error.message }); }
  await readChat();
});
readChat().then(followChat);

$('replay-at').addEventListener('input', (event) => replayTo(Number(event.target.value)));
$('replay-prev').addEventListener('click', () => replayTo(Number($('replay-at').value) - 1));
$('replay-next').addEventListener('click', () => replayTo(Number($('replay-at').value) + 1));
setInterval(tickClocks, 1000);
widenOnResize(() => [...document.querySelectorAll('.board svg.board-svg')]);
// A join may add no event the stream tells of: a waiting room reads the game every few seconds.
setInterval(() => { if (page.game?.status === 'open') refresh().catch(() => {}); }, 3000);
refresh().then(follow).catch((error) => { $('status').textContent = _('Could not load the game: %(why)s', { why: error.message }); });
