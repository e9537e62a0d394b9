// The new-game form, built from the catalogues (GET /api/rules/, /api/bots/): no game-specific code.
import { api, el, showProblem } from './api.js';
import { _ } from './i18n.js';

const form = document.getElementById('new-game');
const rulesSelect = document.getElementById('rules');
const playersSelect = document.getElementById('players');
const optionsBox = document.getElementById('options');
const seatsBox = document.getElementById('seats');
const problem = document.getElementById('problem');
let catalogue = [];
let bots = [];

function optionInput(option) {
  // name and choices are ids the game reads; label and choice_labels are their words, in the page's language
  const id = `option-${option.name}`;
  const words = option.label ?? option.name.replaceAll('_', ' ');
  const hint = () => el('span', { class: 'hint' }, ` ${option.description ?? ''}`);
  const label = (control) => el('label', {}, `${words} `, control, hint());
  if (option.type === 'bool') { // the box before its words, on one line, as forms do
    return el('label', { class: 'check' }, el('input', { type: 'checkbox', id, 'data-option': option.name, 'data-type': 'bool', checked: option.default === true }),
      el('span', {}, words, hint()));
  }
  if (option.choices) {
    const select = el('select', { id, 'data-option': option.name, 'data-type': option.type },
      ...option.choices.map((choice, i) => el('option', { value: JSON.stringify(choice), selected: choice === option.default },
        option.choice_labels?.[i] ?? String(choice))));
    return label(select);
  }
  return label(el('input', { id, 'data-option': option.name, 'data-type': option.type, value: JSON.stringify(option.default) }));
}

function seatRow(index) {
  const choices = [el('option', { value: '' }, index === 0 ? _('me / a person') : _('a person'))];
  for (const bot of bots) {
    for (const level of bot.levels) {
      choices.push(el('option', { value: `${bot.name}:${level}` }, _('bot %(bot)s, level %(level)s', { bot: bot.title, level })));
    }
  }
  return el('label', {}, `${_('Seat %(seat)s', { seat: index })} `, el('select', { 'data-seat': index, id: `seat-${index}` }, ...choices));
}

function rebuild() {
  const rules = catalogue.find((r) => r.id === rulesSelect.value);
  const wanted = Number(playersSelect.value) || rules.min_players;
  playersSelect.replaceChildren();
  for (let n = rules.min_players; n <= rules.max_players; n += 1) {
    playersSelect.append(el('option', { value: n, selected: n === wanted }, String(n)));
  }
  optionsBox.replaceChildren(el('legend', {}, _('Options')), ...rules.options.map(optionInput));
  const players = Number(playersSelect.value);
  seatsBox.replaceChildren(seatsBox.querySelector('legend'), seatsBox.querySelector('.hint'),
    ...Array.from({ length: players }, (_, i) => seatRow(i)));
}

function options() {
  const chosen = {};
  for (const input of optionsBox.querySelectorAll('[data-option]')) {
    const name = input.dataset.option;
    if (input.dataset.type === 'bool') chosen[name] = input.checked;
    else {
      try { chosen[name] = JSON.parse(input.value); } catch { chosen[name] = input.value; }
    }
  }
  return chosen;
}

function timeControl() {
  const type = document.getElementById('time-type').value;
  const pause = document.getElementById('pause-weekends').checked;
  if (type === 'step') return { type, seconds: Number(document.getElementById('step-seconds').value) };
  if (type === 'correspondence') return { type, days: Number(document.getElementById('days').value), pause_weekends: pause };
  if (type === 'bank') return { type, pause_weekends: pause };
  if (type === 'noclock') return { type: 'none' };
  return null; // the server's default: 14 days a move
}

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  problem.hidden = true;
  const creatorPlays = document.getElementById('creator-plays').checked;
  const seatBots = [];
  for (const select of seatsBox.querySelectorAll('[data-seat]')) {
    if (!select.value) continue;
    const [bot, level] = select.value.split(':');
    seatBots.push({ seat: Number(select.dataset.seat), bot, level: Number(level) });
  }
  const body = {
    rules: rulesSelect.value, players: Number(playersSelect.value), options: options(),
    bots: seatBots, creator_plays: creatorPlays, timeout_policy: document.getElementById('timeout-policy').value,
  };
  const control = timeControl();
  if (control) body.time_control = control;
  if (document.getElementById('rated').checked) body.rated = true;
  const invitees = document.getElementById('invitees').value.split(',').map((name) => name.trim()).filter(Boolean);
  if (document.getElementById('private').checked || invitees.length) {
    body.private = true;
    body.invitees = invitees;
  }
  try {
    const game = await api('POST', '/games/', body);
    window.location.href = `/games/${game.id}/`;
  } catch (error) {
    showProblem(problem, error);
  }
});

// Only the chosen time control's fields are shown.
function showTimeFields() {
  const type = document.getElementById('time-type').value;
  for (const field of document.querySelectorAll('[data-time]')) field.hidden = !field.dataset.time.split(' ').includes(type);
}
document.getElementById('time-type').addEventListener('change', showTimeFields);
showTimeFields();

async function start() {
  [catalogue, bots] = await Promise.all([api('GET', '/rules/'), api('GET', '/bots/')]);
  rulesSelect.replaceChildren(...catalogue.map((r) => el('option', { value: r.id }, r.title)));
  rulesSelect.addEventListener('change', () => { playersSelect.value = ''; rebuild(); });
  playersSelect.addEventListener('change', rebuild);
  rebuild();
}

start().catch((error) => showProblem(problem, error));
