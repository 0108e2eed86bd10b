import * as v from 'valibot';

/**
 * ASCII dot-atom local part and a domain of DNS labels with a real top-level domain. Stricter
 * than RFC 5321 on purpose: quoted local parts and bare IP domains are legal but only ever seen
 * in abuse, and SES refuses non-ASCII local parts. Internationalised domains arrive as punycode
 * (`xn--`), so look-alike Unicode domains never reach the list.
 */
const EMAIL_PATTERN =
  /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;

/** The longest address SMTP can carry (RFC 5321 path limit less the angle brackets). */
export const EMAIL_MAX_LENGTH = 254;

/** `email`: trimmed, lower-cased, at most 254 characters, a deliverable address. */
export function emailAddress(parameter = 'email') {
  return v.pipe(
    v.string(`${parameter} must be a string`),
    v.trim(),
    v.toLowerCase(),
    v.nonEmpty(`${parameter} is required`),
    v.maxLength(EMAIL_MAX_LENGTH, `${parameter} must be at most ${EMAIL_MAX_LENGTH} characters`),
    v.regex(EMAIL_PATTERN, `${parameter} must be a valid e-mail address`),
    v.check(
      (email) => (email.split('@')[0]?.length ?? 0) <= 64,
      `${parameter} has a local part longer than 64 characters`,
    ),
  );
}
