// The small HTML pages a person sees after following an approval link: the question with a
// button per option, the recorded answer, or why nothing was recorded. Everything user-given is
// escaped; the pages load nothing and run no script (the CSP in approval-links.ts says so too).
import type { Approval } from '../../store/approvals.ts';
import { escapeHtml } from '../../lib/escape-html.ts';
import { pageLayout as layout } from '../html-pages.ts';

function questionBlock(approval: Approval): string {
  return `<div class="question">${escapeHtml(approval.question)}</div>`;
}

/**
 * The question and one button per option; `preselected` asks to confirm one option only; `team`: a team's question,
 * whom this link answers as and, for an approver who may still hand their vote on, where the second form posts.
 */
export function questionPage(
  approval: Approval,
  actionUrl: string,
  preselected?: string,
  team?: { standing: string; as: string; handOnUrl?: string },
): string {
  const options = preselected ? [preselected] : approval.options;
  const heading = preselected ? `Confirm your answer: “${escapeHtml(preselected)}”` : 'Your answer is needed';
  const buttons = options
    .map((option) => `<button type="submit" name="choice" value="${escapeHtml(option)}">${escapeHtml(option)}</button>`)
    .join('');
  return layout(
    'Answer needed',
    `<h1>${heading}</h1>${questionBlock(approval)}${
      team ? `<p>You answer as <strong>${escapeHtml(team.as)}</strong>. ${escapeHtml(team.standing)}</p>` : ''
    }
<form method="post" action="${escapeHtml(actionUrl)}">
<label for="note" class="muted">Note (optional)</label><textarea id="note" name="note" maxlength="4000"></textarea>
<div class="options">${buttons}</div></form>${team?.handOnUrl ? handOnForm(team.handOnUrl) : ''}
<p class="muted">Expires ${escapeHtml(approval.expiresAt.toUTCString())}.</p>`,
  );
}

/** An approver's second form: another approver of the directory, by name, votes in their place (a POST; no script). */
function handOnForm(actionUrl: string): string {
  return `
<form method="post" action="${escapeHtml(actionUrl)}"><h2 style="font-size:1.1rem;margin-top:2rem">Hand my vote to another approver</h2>
<label for="to" class="muted">Their name among the approvers; they are asked in your place, and this link votes no more.</label>
<input id="to" name="to" required maxlength="63" autocomplete="off" autocapitalize="none" spellcheck="false" style="font:inherit;width:100%;box-sizing:border-box;margin:.5rem 0;padding:.4rem">
<div class="options"><button type="submit">Hand on my vote</button></div></form>`;
}

export function answeredPage(approval: Approval, choice: string, mine: boolean): string {
  const headline = mine
    ? `Thank you: “${escapeHtml(choice)}” is recorded.`
    : `This question was already answered: “${escapeHtml(choice)}”.`;
  return layout('Answered', `<h1>${headline}</h1>${questionBlock(approval)}<p class="muted">You can close this page.</p>`);
}

export function expiredPage(approval: Approval): string {
  return layout(
    'Expired',
    `<h1>This question has expired.</h1>${questionBlock(approval)}<p class="muted">No answer can be recorded any more; it expired ${escapeHtml(approval.expiresAt.toUTCString())}.</p>`,
  );
}

export function invalidChoicePage(approval: Approval, actionUrl: string, choice: string): string {
  return questionPage(approval, actionUrl).replace(
    '<h1>Your answer is needed</h1>',
    `<h1>“${escapeHtml(choice)}” is not one of the answers. Choose one:</h1>`,
  );
}

export function notFoundPage(): string {
  return layout('Link not valid', '<h1>This link is not valid.</h1><p class="muted">Check that it was copied whole.</p>');
}

/** A connect approval's page: one button, which starts the sign-in (a fetch of the link alone starts nothing). */
export function connectPage(approval: Approval, actionUrl: string): string {
  return layout(
    'Sign-in needed',
    `<h1>Sign in to “${escapeHtml(approval.connectServer ?? '')}”</h1>${questionBlock(approval)}
<form method="post" action="${escapeHtml(actionUrl)}"><div class="options"><button type="submit">Sign in</button></div></form>
<p class="muted">Expires ${escapeHtml(approval.expiresAt.toUTCString())}.</p>`,
  );
}

/** A vote counted that did not decide: the approval waits on the others. */
export function votedPage(
  approval: Approval,
  vote: { approver: string; choice: string; tally: Record<string, number>; quorum: number },
): string {
  const counts = Object.entries(vote.tally)
    .map(([option, votes]) => `${escapeHtml(option)}: ${votes} of ${vote.quorum}`)
    .join(', ');
  return layout(
    'Vote recorded',
    `<h1>Thank you: your vote “${escapeHtml(vote.choice)}” is recorded.</h1>${questionBlock(approval)}
<p>The decision waits on more approvers (${counts}).</p><p class="muted">You can close this page.</p>`,
  );
}

/** Why a vote was not taken: this approver voted already, or the link answers as nobody who may. */
export function notCountedPage(approval: Approval, why: string): string {
  return layout('Not recorded', `<h1>${escapeHtml(why)}</h1>${questionBlock(approval)}<p class="muted">Nothing was recorded.</p>`);
}

/** A vote handed to another approver: just now (`now`), or before, when the link is opened again. */
export function handedOnPage(approval: Approval, to: string, now: boolean): string {
  const headline = now ? `Your vote is handed to ${escapeHtml(to)}.` : `You handed your vote to ${escapeHtml(to)}.`;
  return layout(
    'Vote handed on',
    `<h1>${headline}</h1>${questionBlock(approval)}
<p>They are asked at their addresses and answer in your place; this link votes no more.</p><p class="muted">You can close this page.</p>`,
  );
}

/** Why a vote was not handed on; `retryUrl`: the name was not right, so the form is offered again. */
export function notHandedPage(approval: Approval, why: string, retryUrl?: string): string {
  return layout(
    'Not handed on',
    `<h1>${escapeHtml(why)}</h1>${questionBlock(approval)}${retryUrl ? handOnForm(retryUrl) : '<p class="muted">Nothing was changed.</p>'}`,
  );
}
