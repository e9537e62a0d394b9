import { api, el, whenText } from './api.js';
import { _, ngettext, word } from './i18n.js';

const me = document.getElementById('lobby-script').dataset.user;

function seatOf(game) {
  const seat = game.seats.find((s) => s.username === me);
  return seat ? seat.seat : null;
}

function who(game) {
  return game.seats.map((s) => s.username ?? (s.bot ? _('bot %(name)s', { name: s.bot.name }) : _('open'))).join(', ');
}

function who1(game, seat) {
  const entry = game.seats[seat];
  return entry.username === me ? _('you') : entry.username ?? (entry.bot ? _('bot %(name)s', { name: entry.bot.name }) : _('open seat'));
}

function item(game, extra) {
  const seat = seatOf(game);
  const yourTurn = seat !== null && game.to_act.includes(seat);
  return el('li', { class: yourTurn ? 'your-turn' : null },
    el('a', { href: `/games/${game.id}/` }, `#${game.id} ${game.rules}`),
    ` · ${ngettext('%(count)s player: %(who)s', '%(count)s players: %(who)s', game.players, { who: who(game) })}`,
    yourTurn ? el('strong', {}, ` · ${_('your turn')}`) : null,
    !yourTurn && game.status === 'active' && game.to_act.length ? ` · ${_('waiting for %(who)s', { who: game.to_act.map((s) => who1(game, s)).join(_(' and ')) })}` : null,
    game.deadline ? ` · ${_('deadline in %(left)s', { left: whenText(game.deadline) })}` : null,
    game.result ? ` · ${word(game.result.reason)}` : null,
    extra ?? null);
}

async function fill(id, query, extra) {
  const list = document.getElementById(id);
  if (!list) return;
  try {
    const page = await api('GET', `/games/?${query}&limit=50`);
    let games = page.results;
    if (id === 'mine') {
      games = games.filter((g) => g.status !== 'finished');
      const turn = (g) => (g.to_act.includes(seatOf(g)) ? 0 : 1);
      games.sort((a, b) => turn(a) - turn(b) || String(a.deadline ?? '~').localeCompare(String(b.deadline ?? '~')));
    }
    list.replaceChildren(...(games.length ? games.map((g) => item(g, extra?.(g))) : [el('li', {}, _('none'))]));
  } catch (error) {
    list.replaceChildren(el('li', { class: 'problem' }, error.message));
  }
}

function joinButton(game) {
  if (!me || seatOf(game) !== null) return null;
  return el('button', {
    type: 'button',
    onclick: async () => {
      await api('POST', `/games/${game.id}/join/`);
      window.location.href = `/games/${game.id}/`;
    },
  }, _('Join'));
}

async function invitations() {
  if (!me) return;
  const invited = await api('GET', '/invitations/').catch(() => []);
  document.getElementById('invited-box').hidden = invited.length === 0;
  document.getElementById('invited').replaceChildren(...invited.map((entry) => el('li', { 'data-game': entry.game },
    el('a', { href: `/games/${entry.game}/` }, `#${entry.game} ${entry.rules}`), ` · ${_('from %(who)s', { who: entry.by })} · ${word(entry.status)} `,
    entry.status === 'open' ? el('button', { type: 'button', class: 'join-invited', onclick: async () => {
      await api('POST', `/games/${entry.game}/join/`);
      window.location.href = `/games/${entry.game}/`;
    } }, _('Join')) : null,
    el('button', { type: 'button', class: 'decline-invited', onclick: async () => {
      await api('POST', `/games/${entry.game}/decline/`);
      await invitations();
    } }, _('Decline')))));
}

invitations();
fill('mine', 'mine=1');
fill('open', 'status=open', joinButton);
fill('active', 'status=active');
fill('finished', 'status=finished');
