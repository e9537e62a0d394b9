// Being told: the tab's title and icon say when it is your turn, and, once asked for with a
// click (#alerts), a sound and a browser notification whenever one of your games becomes your
// turn, from any page of the site. The choice is kept in this browser (localStorage).
import { api } from './api.js';
import { _ } from './i18n.js';

const KEY = 'scrapyard.alerts';
const button = document.getElementById('alerts');
const favicon = document.getElementById('favicon');
const baseTitle = document.title.replace(/^\(.*?\) /, '');
let known = null; // game id -> whether it was your turn at the last look
let ownGame = null; // the game this page shows: its own script tells about it

export function alertsOn() {
  return localStorage.getItem(KEY) === 'on';
}

function showButton() {
  if (!button) return;
  const on = alertsOn();
  button.textContent = on ? _('Turn alerts: on') : _('Turn alerts: off');
  button.setAttribute('aria-pressed', String(on));
}

button?.addEventListener('click', async () => {
  if (alertsOn()) {
    localStorage.setItem(KEY, 'off');
  } else {
    if ('Notification' in window && Notification.permission === 'default') await Notification.requestPermission();
    localStorage.setItem(KEY, 'on');
    beep(); // the sound it will make, heard once now (and the audio unlocked by this click)
  }
  showButton();
});

let audio = null;
function beep() {
  try {
    audio ??= new AudioContext();
    const tone = audio.createOscillator();
    const volume = audio.createGain();
    tone.frequency.value = 660;
    volume.gain.setValueAtTime(0.15, audio.currentTime);
    volume.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.35);
    tone.connect(volume).connect(audio.destination);
    tone.start();
    tone.stop(audio.currentTime + 0.35);
  } catch { /* no audio here: the notification and the title still tell */ }
}

// It became your turn in `game` (an id): a sound and a notification, if asked for.
export function tell(game, text) {
  if (!alertsOn()) return;
  beep();
  if ('Notification' in window && Notification.permission === 'granted') {
    const note = new Notification(_('Scrapyard: your turn'), { body: text, tag: `game-${game}` });
    note.onclick = () => { window.focus(); window.location.href = `/games/${game}/`; };
  }
}

// The title and the icon: "(your turn)" when any of your games waits for you.
export function showTurn(yourTurn, count = 1) {
  const mark = yourTurn ? (count > 1 ? _('(%(count)s) your turn', { count }) : _('(your turn)')) : '';
  document.title = mark ? `${mark} ${baseTitle}` : baseTitle;
  if (favicon) favicon.href = yourTurn ? favicon.dataset.turn : favicon.dataset.idle;
}

export function followingGame(game) {
  ownGame = game;
}

let ownTurn = false;
export function ownGameTurn(yourTurn) {
  ownTurn = yourTurn;
}

async function look() {
  const page = await api('GET', '/games/?mine=1&status=active&limit=100').catch(() => null);
  if (!page) return;
  const me = document.querySelector('nav a[href="/account/"]')?.textContent;
  const now = new Map(page.results.map((game) => {
    const seat = game.seats.find((s) => s.username === me);
    return [game.id, seat !== undefined && game.to_act.includes(seat.seat)];
  }));
  if (known) {
    for (const [game, yours] of now) {
      if (yours && !known.get(game) && game !== ownGame) tell(game, _('Game %(id)s waits for your move.', { id: game }));
    }
  }
  known = now;
  const waiting = [...now].filter(([game, yours]) => yours && game !== ownGame).length + (ownTurn ? 1 : 0);
  showTurn(waiting > 0, waiting);
}

showButton();
look();
setInterval(look, 15000);
