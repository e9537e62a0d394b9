// The account page: email and mail choices, the mail received, vacation, scoped tokens and webhooks,
// through the same API as any client.
import { api, el, showProblem } from './api.js';
import { _, ngettext, dateText } from './i18n.js';

const $ = (id) => document.getElementById(id);
const problem = $('problem');
const guard = (action) => async (event) => {
  event?.preventDefault();
  problem.hidden = true;
  try { await action(); } catch (error) { showProblem(problem, error); }
};

const NOTICE_TEXT = {
  game_started: _('a game of mine starts'), your_turn: _('it is my turn'),
  deadline_warning: _('a move of mine is close to its deadline'), game_over: _('a game of mine ends'),
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
    `${_('Mail to your address bounced on %(when)s (%(why)s), so mail is off.', { when: dateText(mail.bounced_at), why: mail.bounce_reason })} `,
    el('button', { type: 'button', id: 'mail-on', onclick: guard(async () => { await api('PATCH', '/mail/settings/', { mail_on: true }); await showSettings(); }) }, _('My address works again: turn mail on')),
  ] : []));
  $('email').value = account.email;
  $('notify').replaceChildren(el('legend', {}, _('Mail me when')), ...Object.entries(account.notify).map(([notice, on]) =>
    el('label', {}, el('input', { type: 'checkbox', 'data-notice': notice, checked: on }), ` ${NOTICE_TEXT[notice] ?? notice}`)));
}

$('settings-form').addEventListener('submit', guard(async () => {
  const notify = Object.fromEntries([...$('notify').querySelectorAll('[data-notice]')].map((box) => [box.dataset.notice, box.checked]));
  await api('PATCH', '/accounts/me/', { email: $('email').value, notify });
  await api('PATCH', '/mail/settings/', { cadence: $('cadence').value, digest_hour: Number($('digest-hour').value), time_zone: $('time-zone').value.trim() || 'UTC', play_forced: $('play-forced').checked });
  $('saved').textContent = _('Saved.');
  await showSettings();
}));

async function showVacation() {
  const vacation = await api('GET', '/accounts/me/vacation/');
  $('vacation').textContent = vacation.on_vacation
    ? ngettext('On vacation since %(since)s; %(count)s day left this year.', 'On vacation since %(since)s; %(count)s days left this year.', vacation.days_left, { since: dateText(vacation.since) })
    : _('Not on vacation; %(left)s of %(all)s days left this year.', { left: vacation.days_left, all: vacation.days_per_year });
  $('vacation-toggle').textContent = vacation.on_vacation ? _('End vacation') : _('Start vacation');
  $('vacation-toggle').onclick = guard(async () => { await api('POST', '/accounts/me/vacation/', { on: !vacation.on_vacation }); await showVacation(); });
}

async function showInbound() {
  const received = await api('GET', '/mail/inbound/');
  $('inbound').replaceChildren(...(received.length ? received.map((mail) => el('li', { 'data-outcome': mail.outcome },
    `${dateText(mail.received_at)} · ${_('game %(id)s', { id: mail.game ?? '?' })} · “${mail.command || mail.subject}” · `,
    el('strong', {}, mail.outcome === 'done' ? _('done') : mail.outcome === 'refused' ? _('refused') : _('waiting')),
    `: ${mail.code}${mail.detail ? ` (${mail.detail})` : ''}`)) : [el('li', {}, _('None yet.'))]));
}

async function showTokens() {
  const tokens = await api('GET', '/tokens/');
  $('tokens').replaceChildren(...tokens.map((token) => el('li', {},
    `${token.name || _('unnamed')} (${token.prefix}…): ${token.scopes.join(', ')} `,
    el('button', { type: 'button', onclick: guard(async () => { await api('DELETE', `/tokens/${token.id}/`); await showTokens(); }) }, _('Revoke')))));
}

async function showHooks() {
  const hooks = await api('GET', '/webhooks/');
  $('hooks').replaceChildren(...hooks.map((hook) => el('li', {},
    `${hook.url} · ${hook.events.join(', ')} · ${hook.active ? _('active') : _('disabled: %(why)s', { why: hook.disabled_reason })} `,
    el('button', { type: 'button', onclick: guard(async () => { await api('DELETE', `/webhooks/${hook.id}/`); await showHooks(); }) }, _('Delete')))));
}

$('token-form').addEventListener('submit', guard(async () => {
  const scopes = [...$('token-form').querySelectorAll('input[type=checkbox]:checked')].map((box) => box.value);
  const token = await api('POST', '/tokens/', { scopes, name: $('token-name').value });
  $('new-token').textContent = _('Your new token (shown this once): %(token)s', { token: token.token });
  $('new-token').hidden = false;
  await showTokens();
}));

$('hook-form').addEventListener('submit', guard(async () => {
  const hook = await api('POST', '/webhooks/', { url: $('hook-url').value });
  $('new-hook').textContent = _('Signing secret (shown this once): %(secret)s', { secret: hook.secret });
  $('new-hook').hidden = false;
  await showHooks();
}));

guard(async () => { await Promise.all([showSettings(), showInbound(), showVacation(), showTokens(), showHooks()]); })();
