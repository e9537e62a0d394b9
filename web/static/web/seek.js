// Quick pairing from the lobby: a seek (POST /api/seeks/), followed until the server pairs it.
import { api, el, showProblem } from './api.js';
import { _, timeText, word } from './i18n.js';

const form = document.getElementById('seek-form');
const rulesSelect = document.getElementById('seek-rules');
const playersSelect = document.getElementById('seek-players');
const status = document.getElementById('seek-status');
const cancel = document.getElementById('seek-cancel');
let catalogue = [];
let seeking = null;

function playerChoices() {
  const rules = catalogue.find((r) => r.id === rulesSelect.value);
  const choices = [];
  for (let n = rules.min_players; n <= rules.max_players; n += 1) choices.push(el('option', { value: n }, String(n)));
  playersSelect.replaceChildren(...choices);
}

async function follow(seek) {
  // The seek the form just made can also be found by the look for this account's open seeks
  // at load, when that look is answered after the form's: one follower per seek, or two would
  // poll and, once paired, navigate twice (the second aborting the first).
  if (seeking === seek.id) return;
  seeking = seek.id;
  cancel.hidden = false;
  status.textContent = _('Seeking %(game)s for %(players)s at %(rating)s… (until %(until)s)', { game: seek.rules, players: seek.players, rating: seek.rating, until: timeText(seek.expires_at) });
  while (seeking === seek.id) {
    const now = await api('GET', `/seeks/${seek.id}/`);
    if (now.status === 'paired') {
      window.location.href = `/games/${now.game}/`;
      return;
    }
    if (now.status !== 'open') {
      status.textContent = _('The seek is %(status)s.', { status: word(now.status) });
      break;
    }
    await new Promise((resolve) => { setTimeout(resolve, 1000); });
  }
  cancel.hidden = true;
}

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  try {
    const seek = await api('POST', '/seeks/', {
      rules: rulesSelect.value, players: Number(playersSelect.value),
      time_control: JSON.parse(document.getElementById('seek-clock').value),
      rated: document.getElementById('seek-rated').checked,
    });
    await follow(seek);
  } catch (error) {
    showProblem(status, error);
  }
});

cancel.addEventListener('click', async () => {
  const id = seeking;
  seeking = null;
  await api('DELETE', `/seeks/${id}/`).catch((error) => showProblem(status, error));
  status.textContent = _('Stopped seeking.');
  cancel.hidden = true;
});

catalogue = await api('GET', '/rules/');
rulesSelect.replaceChildren(...catalogue.map((r) => el('option', { value: r.id }, r.title ?? r.id)));
rulesSelect.addEventListener('change', playerChoices);
playerChoices();
const mine = await api('GET', '/seeks/?mine=true');
const open = mine.find((s) => s.status === 'open');
if (open) follow(open);
