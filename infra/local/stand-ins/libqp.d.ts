// libqp ships no types: the one function the local SES's tracking uses.
declare module 'libqp' {
  /** The bytes of quoted-printable text: soft line breaks joined, `=XX` escapes decoded. */
  export function decode(text: string): Buffer;
}
