// Fetchers that open links without a person: chat unfurlers, social previews, mail scanners and
// search crawlers. A GET from one of them must never answer an approval; it sees the page with a
// button instead. Matched on the User-Agent, case-insensitively.
const FETCHERS = [
  'slackbot',
  'slack-imgproxy',
  'telegrambot',
  'discordbot',
  'twitterbot',
  'facebookexternalhit',
  'facebot',
  'linkedinbot',
  'whatsapp',
  'skypeuripreview',
  'microsoftpreview',
  'teams',
  'embedly',
  'iframely',
  'pinterest',
  'redditbot',
  'applebot',
  'googlebot',
  'google-inspectiontool',
  'bingbot',
  'bingpreview',
  'yandex',
  'duckduckbot',
  'baiduspider',
  'mattermost',
  'rocket.chat',
  'zoom',
  'viber',
  'snapchat',
  'line/',
  'kakaotalk',
  'outlook',
  'ms-office',
  'office',
  'safelinks',
  'proofpoint',
  'mimecast',
  'barracuda',
  'bot',
  'crawler',
  'spider',
  'preview',
  'curl/',
  'wget/',
];

const PATTERN = new RegExp(FETCHERS.map((name) => name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|'), 'i');

export function isLinkPreviewFetcher(userAgent: string | undefined): boolean {
  // No User-Agent at all is a script, not a person clicking.
  if (!userAgent) return true;
  return PATTERN.test(userAgent);
}
