//! Bot notes and fallback marks (`proto/rookery/v1/notes.proto`): a bot may attach a [`Note`] —
//! free text and named numbers — to any reply; the kit checks its bounds before sending it, and
//! marks every reply it makes itself because the bot's code failed with a `Fallback` reason.
use crate::pb::{BotNote, Fallback};
use std::collections::BTreeMap;
use std::fmt;

/// The most bytes of UTF-8 in a note's text.
pub const MAX_NOTE_TEXT_BYTES: usize = 512;
/// The most named numbers in a note.
pub const MAX_NOTE_VALUES: usize = 16;
/// The longest name of a note's number, in characters (at least 1).
pub const MAX_NOTE_NAME_CHARS: usize = 32;
/// The most bytes of UTF-8 in a fallback's reason (longer reasons are cut at a character).
pub const MAX_FALLBACK_REASON_BYTES: usize = 256;

/// A note on one reply: free text and named numbers (e.g. samples searched, expected points).
/// Private to the bot's seat until the hand is scored; public after, like the hand's cards.
///
/// ```
/// use rookery_kit::note::Note;
/// let note = Note::new("pimc: 400 samples").value("samples", 400.0).value("ev", 31.5);
/// assert!(note.validate().is_ok());
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Note {
    /// Free text: at most [`MAX_NOTE_TEXT_BYTES`] bytes.
    pub text: String,
    /// Named numbers: at most [`MAX_NOTE_VALUES`]; names of 1 to 32 of `[A-Za-z0-9_.-]`; finite.
    pub values: BTreeMap<String, f64>,
}

/// Why a note cannot be sent: it breaks one of the bounds of `BotNote`.
#[derive(Debug, Clone, PartialEq)]
pub struct NoteError(pub String);

impl fmt::Display for NoteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl std::error::Error for NoteError {}

impl Note {
    /// A note with `text` and no numbers.
    pub fn new(text: impl Into<String>) -> Note {
        Note { text: text.into(), values: BTreeMap::new() }
    }

    /// The note with the number `name` set to `value`.
    pub fn value(mut self, name: impl Into<String>, value: f64) -> Note {
        self.values.insert(name.into(), value);
        self
    }

    /// Checks the bounds of `BotNote` (proto/rookery/v1/notes.proto).
    pub fn validate(&self) -> Result<(), NoteError> {
        if self.text.len() > MAX_NOTE_TEXT_BYTES {
            return Err(NoteError(format!(
                "note text is {} bytes of UTF-8; at most {MAX_NOTE_TEXT_BYTES}",
                self.text.len()
            )));
        }
        if self.values.len() > MAX_NOTE_VALUES {
            return Err(NoteError(format!("note has {} values; at most {MAX_NOTE_VALUES}", self.values.len())));
        }
        for (name, value) in &self.values {
            let good = (1..=MAX_NOTE_NAME_CHARS).contains(&name.chars().count())
                && name.chars().all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c));
            if !good {
                return Err(NoteError(format!(
                    "note value name {name:?} must be 1 to {MAX_NOTE_NAME_CHARS} characters of [A-Za-z0-9_.-]"
                )));
            }
            if !value.is_finite() {
                return Err(NoteError(format!("note value {name:?} is {value}; values must be finite")));
            }
        }
        Ok(())
    }

    /// The protocol message, once the note is within its bounds.
    pub fn to_proto(&self) -> Result<BotNote, NoteError> {
        self.validate()?;
        Ok(BotNote { text: self.text.clone(), values: self.values.iter().map(|(k, v)| (k.clone(), *v)).collect() })
    }
}

/// The `Fallback` mark with `reason`, cut to [`MAX_FALLBACK_REASON_BYTES`] at a character.
pub fn fallback(reason: &str) -> Fallback {
    let mut end = reason.len().min(MAX_FALLBACK_REASON_BYTES);
    while !reason.is_char_boundary(end) {
        end -= 1;
    }
    Fallback { reason: reason[..end].to_string() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_note_within_bounds_converts() {
        let note = Note::new("x".repeat(512)).value("samples", 400.0).value("a.b-c_9", -1.5);
        let proto = note.to_proto().unwrap();
        assert_eq!(proto.values.len(), 2);
        assert_eq!(proto.text.len(), 512);
    }

    #[test]
    fn each_bound_of_a_note_is_a_clear_error() {
        assert!(Note::new("é".repeat(257)).validate().unwrap_err().0.contains("514 bytes"));
        let many = (0..17).fold(Note::new(""), |n, i| n.value(format!("v{i}"), 1.0));
        assert!(many.validate().unwrap_err().0.contains("17 values"));
        for name in ["", "has space", &"n".repeat(33)] {
            assert!(Note::new("").value(name, 1.0).validate().unwrap_err().0.contains("name"));
        }
        assert!(Note::new("").value("nan", f64::NAN).validate().unwrap_err().0.contains("finite"));
    }

    #[test]
    fn a_fallback_reason_is_cut_at_a_character_within_256_bytes() {
        let reason = fallback(&"é".repeat(200));
        assert_eq!(reason.reason.len(), 256);
        assert_eq!(fallback("short").reason, "short");
    }
}
