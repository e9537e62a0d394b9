// Leaderboards, players' profiles and tournaments: read from the public API, nothing else.
import { api, el, showProblem } from './api.js';
import { _, ngettext, dateText, numberText, word } from './i18n.js';

const script = document.getElementById('competition-script');
const problem = document.getElementById('problem');
const SVG = 'http://www.w3.org/2000/svg';

function svg(tag, attributes = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

const KINDS = { swiss: _('Swiss'), round_robin: _('round robin') };
const kindWords = (kind) => KINDS[kind] ?? kind.replace('_', ' ');

// Each game's title by its id, in the reader's language, from the catalogue (asked once a page):
// the API names a game by id, a reader by its title. An unknown id reads as itself.
let titles = null;
function gameTitles() {
  titles ??= api('GET', '/rules/').then((list) => Object.fromEntries(list.map((r) => [r.id, r.title ?? r.id])), () => ({}));
  return titles;
}

function ratingText(r) {
  return `${r.rating}${r.provisional ? '?' : ''} ±${r.deviation}`;
}

function playerLink(r) {
  return r.is_bot && !r.name.match(/^[\w.@+-]+$/) ? r.name : el('a', { href: `/players/${encodeURIComponent(r.name)}/` }, r.name);
}

async function leaderboards() {
  // The pools are listed by the page itself (every game, time class and system), rated ones first.
  // The pool chosen is kept in the address (?pool=), so a club can link its own board.
  const select = document.getElementById('pool');
  const linked = new URLSearchParams(window.location.search).get('pool');
  if (linked && [...select.options].some((option) => option.value === linked)) select.value = linked;
  let asked = 0;
  const fill = async () => {
    const [rules, timeClass, system] = select.value.split('/');
    // Only the last pool chosen fills the lists: an earlier pool's answer arriving later is dropped.
    const mine = ++asked;
    const board = await api('GET', `/leaderboards/${rules}/${timeClass}/?system=${system}`);
    if (mine !== asked) return;
    document.getElementById('board-rule').textContent = _('Who is listed: %(rule)s.', { rule: board.rule });
    for (const side of ['people', 'bots']) {
      const rows = board[side].map((r) => el('li', {}, playerLink(r), ` ${ratingText(r)} · ${ngettext('%(count)s game', '%(count)s games', r.games)} (${r.wins}/${r.draws}/${r.losses})`));
      document.getElementById(side).replaceChildren(...(rows.length ? rows : [el('li', {}, _('nobody yet'))]));
    }
  };
  if (!select.options.length) {
    for (const side of ['people', 'bots']) document.getElementById(side).replaceChildren(el('li', {}, _('no games to rate')));
    return;
  }
  select.addEventListener('change', () => {
    window.history.replaceState(null, '', `?pool=${encodeURIComponent(select.value)}`);
    fill().catch((error) => showProblem(problem, error));
  });
  await fill();
}

// The rating after each game, with its deviation as a band: the plot on a profile.
function plot(history) {
  const width = 480, height = 160, pad = 30;
  const lows = history.map((h) => h.rating - h.deviation), highs = history.map((h) => h.rating + h.deviation);
  const min = Math.min(...lows), max = Math.max(...highs), span = Math.max(1, max - min);
  const x = (i) => pad + (history.length === 1 ? 0 : (i * (width - 2 * pad)) / (history.length - 1));
  const y = (v) => height - pad - ((v - min) * (height - 2 * pad)) / span;
  const band = history.map((h, i) => `${x(i)},${y(h.rating + h.deviation)}`)
    .concat(history.map((h, i) => `${x(i)},${y(h.rating - h.deviation)}`).reverse()).join(' ');
  const line = history.map((h, i) => `${x(i)},${y(h.rating)}`).join(' ');
  return svg('svg', { viewBox: `0 0 ${width} ${height}`, class: 'rating-plot', role: 'img',
    'aria-label': _('rating history: %(ratings)s', { ratings: history.map((h) => h.rating).join(', ') }) },
  svg('polygon', { points: band, class: 'deviation' }),
  svg('polyline', { points: line, class: 'rating' }),
  svg('text', { x: 2, y: y(max) + 4 }, String(Math.round(max))),
  svg('text', { x: 2, y: y(min) }, String(Math.round(min))));
}

async function player() {
  const [profile, title] = await Promise.all([api('GET', `/players/${encodeURIComponent(script.dataset.username)}/`), gameTitles()]);
  document.getElementById('tally').textContent = `${profile.is_bot ? `${_('A bot.')} ` : ''}${ngettext('%(count)s rated game: %(wins)s won, %(draws)s drawn, %(losses)s lost.', '%(count)s rated games: %(wins)s won, %(draws)s drawn, %(losses)s lost.', profile.games, { wins: profile.wins, draws: profile.draws, losses: profile.losses })}`;
  const pools = profile.ratings.map((r) => el('section', { class: 'pool' },
    el('h3', {}, `${title[r.rules] ?? r.rules} · ${r.time_class} · ${r.system === 'glicko2' ? _('two players') : _('three or four players')}`),
    el('p', {}, `${ratingText(r)} · ${ngettext('%(count)s game', '%(count)s games', r.games)} (${r.wins}/${r.draws}/${r.losses})`),
    r.history.length ? plot(r.history) : null));
  document.getElementById('ratings').replaceChildren(...(pools.length ? pools : [el('p', {}, _('no rated games yet'))]));
  const games = profile.current_games.map((g) => el('li', {}, el('a', { href: `/games/${g.id}/` }, `#${g.id} ${title[g.rules] ?? g.rules}`), ` · ${g.rated ? _('rated') : _('casual')}`));
  document.getElementById('current').replaceChildren(...(games.length ? games : [el('li', {}, _('none'))]));
}

async function tournaments() {
  const [list, title] = await Promise.all([api('GET', '/tournaments/'), gameTitles()]);
  const items = list.map((t) => el('li', {}, el('a', { href: `/tournaments/${t.id}/` }, t.name),
    ` · ${kindWords(t.kind)} · ${title[t.rules] ?? t.rules} · ${ngettext('%(count)s entrant', '%(count)s entrants', t.entrants)} · ${word(t.status)}`));
  document.getElementById('tournaments').replaceChildren(...(items.length ? items : [el('li', {}, _('none yet'))]));
}

// A tournament page follows its tournament while it is open: entries, a new round's pairings, a
// game's result and the standings appear without a reload. Asked again every FOLLOW_MS while the
// tab is shown (an unchanged answer is the browser's 304 against its ETag), and at once when the
// tab is shown again.
const FOLLOW_MS = 20_000;
let following = null;

function follow(status) {
  clearTimeout(following);
  if (!['registering', 'running'].includes(status)) return;
  following = setTimeout(() => {
    if (document.hidden) {
      document.addEventListener('visibilitychange', () => tournament().catch((error) => showProblem(problem, error)), { once: true });
      return;
    }
    tournament().catch((error) => { showProblem(problem, error); follow(status); });
  }, FOLLOW_MS);
}

async function tournament() {
  const id = script.dataset.tournament;
  const me = script.dataset.username;
  const [t, title] = await Promise.all([api('GET', `/tournaments/${id}/`), gameTitles()]);
  follow(t.status);
  document.getElementById('name').textContent = t.name;
  document.title = `${t.name} · Scrapyard`;
  const round = t.rounds ? _('round %(round)s of %(rounds)s', { round: t.current_round, rounds: t.rounds }) : _('round %(round)s', { round: t.current_round });
  document.getElementById('about').textContent = `${_('%(kind)s of %(game)s (%(players)s a table)', { kind: kindWords(t.kind), game: title[t.rules] ?? t.rules, players: t.players })}, `
    + `${_('%(rated)s, by %(organiser)s', { rated: t.rated ? _('rated') : _('casual'), organiser: t.organiser })} · ${word(t.status)}${t.status === 'running' ? `: ${round}` : ''}`
    + ` · ${_('starts %(when)s', { when: dateText(t.starts_at) })}`;
  const entered = t.entrant_list.some((e) => e.username === me && !e.withdrawn);
  // What cannot be undone is asked first, as resigning a game is: a withdrawal once it runs (no
  // entering again) and an early start (entries close).
  const act = (id_, shown, method, path, ask = null) => {
    const button = document.getElementById(id_);
    if (!button) return;
    button.hidden = !shown;
    button.onclick = () => {
      if (ask && !window.confirm(ask)) return;
      changed(api(method, path));
    };
  };
  // A running Swiss takes late entrants until its last round is paired (a round robin's schedule
  // is fixed); one who withdrew cannot come back.
  const known = t.entrant_list.some((e) => e.username === me);
  const late = t.status === 'running' && t.kind === 'swiss' && t.current_round < t.rounds;
  act('enter', me && !known && (t.status === 'registering' || late), 'POST', `/tournaments/${id}/entry/`,
    late ? _('Enter now? You are paired from round %(round)s on; the rounds already played count as missed, with no points.', { round: t.current_round + 1 }) : null);
  act('leave', entered && ['registering', 'running'].includes(t.status), 'DELETE', `/tournaments/${id}/entry/`,
    t.status === 'running' ? _('Withdraw from this tournament? You will not be paired again, and cannot enter again.') : null);
  act('start', me === t.organiser && t.status === 'registering', 'POST', `/tournaments/${id}/start/`,
    _('Start now? Entries close and round 1 is paired.'));
  byes(t, me);
  document.getElementById('entrants').replaceChildren(...(t.entrant_list.length ? t.entrant_list.map((e) => el('li', {},
    e.username ? el('a', { href: `/players/${encodeURIComponent(e.username)}/` }, e.name) : e.name,
    ` · ${e.rating}${e.withdrawn ? ` · ${_('withdrawn')}` : ''}${byesText(e, t)}`, ...removeButton(e, t, me)))
    : [el('li', {}, _('nobody yet'))]));
  // Only a tables-of-two tournament has a TRF file (the API answers 409 for tables of three or four).
  document.getElementById('trf-line').hidden = t.players !== 2;
  document.getElementById('rounds-first').hidden = t.players !== 2;
  standings(t.standings);
  document.getElementById('rounds').replaceChildren(...t.round_list.map((r) => el('section', {},
    el('h3', {}, _('Round %(round)s', { round: r.round })),
    el('ol', { class: 'boards' }, ...r.tables.map((table) => el('li', {}, board(table),
      table.points ? ` · ${table.points.map((points) => numberText(points)).join(' – ')}` : ''))))));
}

// What a button asked of the API, then the page drawn again from the tournament as it now is (or
// the refusal shown).
function changed(asked) {
  return asked.then(() => tournament()).catch((error) => showProblem(problem, error));
}

// A Swiss entrant may ask to sit out rounds not yet paired, for half a point each (as many as the
// organiser allows), and take such a request back until its round is paired.
function byes(t, me) {
  const section = document.getElementById('byes');
  if (!section) return;
  const mine = t.entrant_list.find((e) => e.username === me && !e.withdrawn);
  section.hidden = !mine || t.kind !== 'swiss' || !t.half_point_byes || !['registering', 'running'].includes(t.status);
  if (section.hidden) return;
  const id = script.dataset.tournament;
  const left = t.half_point_byes - mine.byes_asked.length;
  document.getElementById('byes-rule').textContent = ngettext('You may sit out %(count)s round of this tournament for half a point: ask before the round is paired.',
    'You may sit out %(count)s rounds of this tournament for half a point each: ask before the round is paired.',
    t.half_point_byes) + ' ' + _('Left to ask for: %(left)s.', { left });
  document.getElementById('byes-asked').replaceChildren(...mine.byes_asked.map((number) => el('li', {},
    _('Round %(round)s: half-point bye', { round: number }),
    ...(number > t.current_round ? [' ', el('button', { type: 'button', class: 'take-back',
      onclick: () => changed(api('DELETE', `/tournaments/${id}/byes/${number}/`)) }, _('Take back'))] : []))));
  const form = document.getElementById('bye-form');
  const input = document.getElementById('bye-round');
  form.hidden = left <= 0;
  input.min = t.current_round + 1;
  if (t.rounds) input.max = t.rounds; else input.removeAttribute('max');
  if (!input.value || Number(input.value) <= t.current_round) input.value = t.current_round + 1;
  form.onsubmit = (event) => {
    event.preventDefault();
    changed(api('POST', `/tournaments/${id}/byes/`, { round: Number(input.value) }));
  };
}

// The organiser may take any entrant out (a bot entered at the wrong level, a member who stopped
// coming), asked first as a withdrawal is.
function removeButton(entrant, t, me) {
  if (me !== t.organiser || entrant.withdrawn || !['registering', 'running'].includes(t.status)) return [];
  const remove = () => {
    if (!window.confirm(_('Take %(name)s out of this tournament?', { name: entrant.name }))) return;
    changed(api('DELETE', `/tournaments/${t.id}/entrants/${entrant.id}/`));
  };
  return [' ', el('button', { type: 'button', class: 'remove-entrant', onclick: remove }, _('Take out'))];
}

function byesText(entrant, t) {
  const coming = entrant.byes_asked.filter((number) => number > t.current_round);
  return coming.length ? ` · ${_('sits out round %(rounds)s', { rounds: coming.join(', ') })}` : '';
}

// A round-robin forfeit (the opponent withdrew) is a point won without a game, not a bye: its own
// column, shown once anyone has one, so each row's results add up to its points.
function standings(rows) {
  const forfeits = rows.some((s) => s.forfeits);
  document.getElementById('forfeits-h').hidden = !forfeits;
  document.querySelector('#standings tbody').replaceChildren(...rows.map((s) => {
    const values = [s.rank, s.name, s.points, s.games, s.wins, s.draws, s.losses, s.byes,
      ...(forfeits ? [s.forfeits] : []), s.buchholz, s.sonneborn_berger];
    const cells = values.map((value) => el('td', {}, numberText(value)));
    if (s.withdrawn) cells[1].append(` (${_('withdrawn')})`);
    return el('tr', {}, ...cells);
  }));
}

function board(table) {
  // An imported forfeit names both (its points, after, say who won); a withdrawal's names the winner.
  if (table.forfeit && table.seats.length > 1) return `${table.seats.join(' – ')} (${_('forfeit')})`;
  if (table.forfeit) return _('%(name)s: wins by forfeit', { name: table.seats[0] });
  if (table.asked_for) return _('%(name)s: half-point bye (asked for)', { name: table.seats[0] });
  if (table.bye) return _('%(name)s: bye', { name: table.seats[0] });
  const seats = table.seats.join(' – ');
  return table.game ? el('a', { href: `/games/${table.game}/` }, seats) : seats;
}

// Organising: the form's choices become the API's tournament, then its page.
async function newTournament() {
  const form = document.getElementById('new-tournament');
  const rulesSelect = document.getElementById('t-rules');
  const playersSelect = document.getElementById('t-players');
  const starts = document.getElementById('t-starts');
  const local = (when) => new Date(when.getTime() - when.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
  starts.value = local(new Date(Date.now() + 3600_000));
  starts.min = local(new Date());  // a start already past is refused: entries would close at once
  const fillPlayers = () => {
    const option = rulesSelect.selectedOptions[0];
    const counts = [];
    for (let n = Math.max(2, Number(option.dataset.min)); n <= Number(option.dataset.max); n += 1) counts.push(n);
    playersSelect.replaceChildren(...counts.map((n) => el('option', { value: n }, String(n))));
  };
  rulesSelect.addEventListener('change', fillPlayers);
  fillPlayers();
  // A round robin's schedule is fixed: only a Swiss lets entrants ask for byes.
  const kindSelect = document.getElementById('t-kind');
  const showByes = () => { document.getElementById('t-byes-line').hidden = kindSelect.value !== 'swiss'; };
  kindSelect.addEventListener('change', showByes);
  showByes();
  // Only the time control chosen asks for its figure.
  const timeSelect = document.getElementById('t-time');
  const showTime = () => {
    document.getElementById('t-step-line').hidden = timeSelect.value !== 'step';
    document.getElementById('t-days-line').hidden = timeSelect.value !== 'correspondence';
  };
  timeSelect.addEventListener('change', showTime);
  showTime();
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const timeType = document.getElementById('t-time').value;
    const timeControl = timeType === 'step'
      ? { type: 'step', seconds: Number(document.getElementById('t-step').value) }
      : { type: 'correspondence', days: Number(document.getElementById('t-days').value) };
    const rounds = document.getElementById('t-rounds').value;
    const body = {
      name: document.getElementById('t-name').value, kind: document.getElementById('t-kind').value,
      rules: rulesSelect.value, players: Number(playersSelect.value), time_control: timeControl,
      rated: document.getElementById('t-rated').checked, rounds: rounds ? Number(rounds) : null,
      half_point_byes: kindSelect.value === 'swiss' ? Number(document.getElementById('t-byes').value) : 0,
      starts_at: new Date(starts.value).toISOString(),
    };
    try {
      const created = await api('POST', '/tournaments/', body);
      window.location.assign(`/tournaments/${created.id}/`);
    } catch (error) {
      showProblem(problem, error);
    }
  });
}

const pages = { leaderboards, player, tournaments, tournament, newTournament };
pages[script.dataset.page]().catch((error) => showProblem(problem, error));
