// Bot notes and fallback marks (proto/rookery/v1/notes.proto): a bot may attach a note — free
// text and named numbers — to any reply by returning `{ action, note }` from `act`; the kit checks
// the note's bounds before sending it, and marks every reply it makes itself because the bot's
// code failed with a `Fallback` reason.

import { Action } from "./gen/rookery/v1/actions";
import { BotNote, Fallback } from "./gen/rookery/v1/notes";

/** The most bytes of UTF-8 in a note's text. */
export const MAX_NOTE_TEXT_BYTES = 512;
/** The most named numbers in a note. */
export const MAX_NOTE_VALUES = 16;
/** The longest name of a note's number, in characters (at least 1, of [A-Za-z0-9_.-]). */
export const MAX_NOTE_NAME_CHARS = 32;
/** The most bytes of UTF-8 in a fallback's reason (longer ones are cut at a character). */
export const MAX_FALLBACK_REASON_BYTES = 256;

/**
 * A bot's note on one reply: free text and named numbers (e.g. samples searched, expected points).
 * Private to the seat until the hand is scored; public after, like the hand's cards.
 */
export interface Note {
  text?: string;
  values?: Record<string, number>;
}

/** What `act` may return to attach a note: the action and the note on it. */
export interface Reply {
  action: Action;
  note?: Note;
}

const NAME = /^[A-Za-z0-9_.-]{1,32}$/;

/** Why the note breaks a bound of BotNote, or null when it is within them. */
export function noteError(note: Note): string | null {
  const text = note.text ?? "";
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes > MAX_NOTE_TEXT_BYTES) return `note text is ${bytes} bytes of UTF-8; at most ${MAX_NOTE_TEXT_BYTES}`;
  const entries = Object.entries(note.values ?? {});
  if (entries.length > MAX_NOTE_VALUES) return `note has ${entries.length} values; at most ${MAX_NOTE_VALUES}`;
  for (const [name, value] of entries) {
    if (!NAME.test(name)) {
      return `note value name ${JSON.stringify(name)} must be 1 to ${MAX_NOTE_NAME_CHARS} characters of [A-Za-z0-9_.-]`;
    }
    if (typeof value !== "number" || !Number.isFinite(value)) {
      return `note value ${JSON.stringify(name)} is ${String(value)}; values must be finite numbers`;
    }
  }
  return null;
}

/** The note as a BotNote; throws a RangeError naming the bound it breaks. */
export function noteToProto(note: Note): BotNote {
  const error = noteError(note);
  if (error !== null) throw new RangeError(error);
  return { text: note.text ?? "", values: { ...(note.values ?? {}) } };
}

/** The Fallback mark with `reason`, cut to MAX_FALLBACK_REASON_BYTES at a character. */
export function fallbackMark(reason: string): Fallback {
  let cut = reason;
  while (Buffer.byteLength(cut, "utf8") > MAX_FALLBACK_REASON_BYTES) cut = cut.slice(0, -1);
  return { reason: cut };
}

/** Whether what `act` returned is a Reply (an action with a note) rather than a bare Action. */
export function isReply(value: Action | Reply): value is Reply {
  return typeof value === "object" && value !== null && "action" in value;
}
