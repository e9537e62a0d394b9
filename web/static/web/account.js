// The account page: email and mail choices, the mail received, vacation, scoped tokens and webhooks,
// through the same API as any client.
import { api, el, showProblem } from './api.js';

const $ = (id) => document.getElementById(id);
const problem = $('problem');
const guard = (action) => async (event) => {
  event?.preventDefault();
  problem.hidden = true;
  try { await action(); } catch (error) { showProblem(problem, error); }
};

const NOTICE_TEXT = {
  game_started: 'a game of mine starts', your_turn: 'it is my turn',
  deadline_warning: 'a move of mine is close to its deadline', game_over: 'a game of mine ends',
};

async function showSettings() {
  const [account, mail] = await Promise.all([api('GET', '/accounts/me/'), api('GET', '/mail/settings/')]);
  $('cadence').value = mail.cadence;
  $('digest-hour').value = mail.digest_hour;
  $('time-zone').value = mail.time_zone;
  $('play-forced').checked = mail.play_forced;
  $('sent-when').textContent = mail.sent_when;
  $('unconfirmed').hidden = mail.address_confirmed || !account.email;
  $('bounced').hidden = !mail.bounced_at;
  $('bounced').replaceChildren(...(mail.bounced_at ? [
    `Mail to your address bounced on ${new Date(mail.bounced_at).toLocaleString()} (${mail.bounce_reason}), so mail is off. `,
    el('button', { type: 'button', id: 'mail-on', onclick: guard(async () => { await api('PATCH', '/mail/settings/', { mail_on: true }); await showSettings(); }) }, 'My address works again: turn mail on'),
  ] : []));
  $('email').value = account.email;
  $('notify').replaceChildren(el('legend', {}, 'Mail me when'), ...Object.entries(account.notify).map(([notice, on]) =>
    el('label', {}, el('input', { type: 'checkbox', 'data-notice': notice, checked: on }), ` ${NOTICE_TEXT[notice] ?? notice}`)));
}

$('settings-form').addEventListener('submit', guard(async () => {
  const notify = Object.fromEntries([...$('notify').querySelectorAll('[data-notice]')].map((box) => [box.dataset.notice, box.checked]));
  await api('PATCH', '/accounts/me/', { email: $('email').value, notify });
  await api('PATCH', '/mail/settings/', { cadence: $('cadence').value, digest_hour: Number($('digest-hour').value), time_zone: $('time-zone').value.trim() || 'UTC', play_forced: $('play-forced').checked });
  $('saved').textContent = 'Saved.';
  await showSettings();
}));

async function showVacation() {
  const vacation = await api('GET', '/accounts/me/vacation/');
  $('vacation').textContent = vacation.on_vacation
    ? `On vacation since ${new Date(vacation.since).toLocaleString()}; ${vacation.days_left} days left this year.`
    : `Not on vacation; ${vacation.days_left} of ${vacation.days_per_year} days left this year.`;
  $('vacation-toggle').textContent = vacation.on_vacation ? 'End vacation' : 'Start vacation';
  $('vacation-toggle').onclick = guard(async () => { await api('POST', '/accounts/me/vacation/', { on: !vacation.on_vacation }); await showVacation(); });
}

async function showInbound() {
  const received = await api('GET', '/mail/inbound/');
  $('inbound').replaceChildren(...(received.length ? received.map((mail) => el('li', { 'data-outcome': mail.outcome },
    `${new Date(mail.received_at).toLocaleString()} · game ${mail.game ?? '?'} · “${mail.command || mail.subject}” · `,
    el('strong', {}, mail.outcome === 'done' ? 'done' : mail.outcome === 'refused' ? 'refused' : 'waiting'),
    `: ${mail.code}${mail.detail ? ` (${mail.detail})` : ''}`)) : [el('li', {}, 'None yet.')]));
}

async function showTokens() {
  const tokens = await api('GET', '/tokens/');
  $('tokens').replaceChildren(...tokens.map((token) => el('li', {},
    `${token.name || 'unnamed'} (${token.prefix}…): ${token.scopes.join(', ')} `,
    el('button', { type: 'button', onclick: guard(async () => { await api('DELETE', `/tokens/${token.id}/`); await showTokens(); }) }, 'Revoke'))));
}

async function showHooks() {
  const hooks = await api('GET', '/webhooks/');
  $('hooks').replaceChildren(...hooks.map((hook) => el('li', {},
    `${hook.url} · ${hook.events.join(', ')} · ${hook.active ? 'active' : `disabled: ${hook.disabled_reason}`} `,
    el('button', { type: 'button', onclick: guard(async () => { await api('DELETE', `/webhooks/${hook.id}/`); await showHooks(); }) }, 'Delete'))));
}

$('token-form').addEventListener('submit', guard(async () => {
  const scopes = [...$('token-form').querySelectorAll('input[type=checkbox]:checked')].map((box) => box.value);
  const token = await api('POST', '/tokens/', { scopes, name: $('token-name').value });
  $('new-token').textContent = `Your new token (shown this once): ${token.token}`;
  $('new-token').hidden = false;
  await showTokens();
}));

$('hook-form').addEventListener('submit', guard(async () => {
  const hook = await api('POST', '/webhooks/', { url: $('hook-url').value });
  $('new-hook').textContent = `Signing secret (shown this once): ${hook.secret}`;
  $('new-hook').hidden = false;
  await showHooks();
}));

guard(async () => { await Promise.all([showSettings(), showInbound(), showVacation(), showTokens(), showHooks()]); })();
