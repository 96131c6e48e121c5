// The small HTML pages a person sees after following an approval link: the question with a
// button per option, the recorded answer, or why nothing was recorded. Everything user-given is
// escaped; the pages load nothing and run no script (the CSP in approval-links.ts says so too).
import type { Approval } from '../../store/approvals.ts';
import { escapeHtml } from '../../lib/escape-html.ts';
import { pageLayout as layout } from '../html-pages.ts';

function questionBlock(approval: Approval): string {
  return `<div class="question">${escapeHtml(approval.question)}</div>`;
}

/** The question and one button per option; `preselected` asks to confirm one option only; `team`: a team's question, whom this link answers as. */
export function questionPage(approval: Approval, actionUrl: string, preselected?: string, team?: { standing: string; as: string }): string {
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
<div class="options">${buttons}</div></form>
<p class="muted">Expires ${escapeHtml(approval.expiresAt.toUTCString())}.</p>`,
  );
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
