/**
 * Characters that steer a terminal or reorder text: C0 controls, DEL, C1 controls (`\u009b` is a
 * one-character escape sequence), the Unicode bidi marks, embeddings, overrides and isolates, and
 * the line and paragraph separators some viewers break lines at. Text from outside that reaches
 * an operator's terminal, a log line or the audit log loses them (or shows them escaped), so it
 * cannot hide, reorder or forge what is around it.
 */
export const UNSAFE_TEXT = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
/** The same, line feeds left alone (for text printed over several lines). */
export const UNSAFE_TEXT_KEEPING_LINES = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** `text` with each unsafe character replaced by a space. */
export function withoutUnsafeText(text: string): string {
  return text.replace(UNSAFE_TEXT, ' ');
}
