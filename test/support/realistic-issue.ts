/**
 * An issue as newsletters are written: about 40 KB of HTML, a style block with media queries,
 * a layout table, 20 stories each with an image and three links (60), and tags in the
 * greeting, the stories, an attribute and the footer.
 */
export function realisticHtml(): string {
  const story = (n: number) => `
<tr><td class="story" style="padding:24px 32px;border-bottom:1px solid #e5e7eb">
  <img src="https://cdn.example.org/2026/11/story-${n}.jpg" width="536" height="268" alt="Story ${n}" style="display:block;width:100%;height:auto;border-radius:6px">
  <h2 style="font-size:20px;line-height:28px;margin:16px 0 8px 0"><a href="https://example.org/stories/${n}?utm_source=newsletter&amp;utm_medium=email&amp;utm_campaign=november" style="color:#111827;text-decoration:none">Story ${n}: what changed this month${n === 3 ? ' in {profile_city}' : ''}</a></h2>
  <p style="font-size:16px;line-height:24px;margin:0 0 12px 0">${n === 1 ? '{name}, ' : ''}the quick brown fox jumps over the lazy dog while the committee reviews the budget, the roadmap and the plans for the winter release; readers asked about prices, delivery times and the new opening hours, and we answer each of them below with figures from the last quarter and a look at what comes next.</p>
  <p style="font-size:16px;line-height:24px;margin:0 0 12px 0">In the workshop the team rebuilt the loading dock, moved the archive to the second floor and tested the new heating before the first frost; the bakery next door now opens at seven, the library extends its hours on Thursdays, and the market moves to the square by the river until March, with more stalls, longer hours and a weekly concert on Saturday afternoons. The survey closes at the end of the month: tell us what you read, what you skip and what you would like to see more of, and we will publish the results, the questions and every answer we could not fit here in the December issue.</p>
  <p style="font-size:14px;line-height:20px;margin:0"><a href="https://example.org/stories/${n}/more?utm_source=newsletter" class="button" title="Read more, {name}">Read more</a> &middot; <a href="https://example.org/share?story=${n}&amp;via=newsletter">Share</a></p>
</td></tr>`;
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>November news</title>
<style>
  body { margin: 0; padding: 0; background: #f3f4f6; font-family: -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; }
  table { border-collapse: collapse; } img { border: 0; outline: none; text-decoration: none; }
  a { color: #1d4ed8; } .wrapper { width: 100%; background: #f3f4f6; } .main { width: 600px; background: #ffffff; }
  .button { display: inline-block; padding: 8px 14px; background: #1d4ed8; color: #ffffff !important; border-radius: 4px; }
  .story h2 a:hover { text-decoration: underline; } .footer { color: #6b7280; font-size: 12px; }
  @media (max-width: 620px) { .main { width: 100% !important; } .story { padding: 16px !important; } }
  h1, h2, h3 { font-family: Georgia, "Times New Roman", serif; font-weight: 600; color: #111827; }
  p { margin: 0 0 12px 0; } ul { padding-left: 20px; } li { margin: 0 0 6px 0; }
  .preheader { display: none !important; visibility: hidden; opacity: 0; color: transparent; height: 0; width: 0; }
  .social a { display: inline-block; margin: 0 6px; } .social img { width: 24px; height: 24px; }
  @media (prefers-color-scheme: dark) { .main { background: #111827 !important; } .story p { color: #e5e7eb !important; } }
</style></head>
<body><span class="preheader">Twenty stories this month, the survey, the winter market and what the committee decided about the budget.</span>
<table role="presentation" class="wrapper"><tr><td align="center">
<table role="presentation" class="main">
<tr><td style="padding:24px 32px"><img src="https://cdn.example.org/logo.png" width="120" height="40" alt="Example"><h1 style="font-size:26px">Hello {name} {surname}!</h1></td></tr>
${Array.from({ length: 20 }, (_, index) => story(index + 1)).join('')}
<tr><td class="footer" style="padding:24px 32px">Sent to {email}. <a href="{unsubscription_url}">Unsubscribe</a></td></tr>
</table></td></tr></table></body></html>
`;
}
