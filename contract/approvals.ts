// How an approval's answer arrived (`answeredVia` of an approval, `via` of `approval.answered`): the
// authenticated API, a signed link, or a provider's reply.
export const ANSWER_VIAS = ['api', 'link', 'slack', 'telegram', 'email', 'webhook'] as const;
export type AnswerVia = (typeof ANSWER_VIAS)[number];
