// Bot notes and fallback marks (proto/rookery/v1/notes.proto): a bot may attach a Note — free
// text and named numbers — to any reply (Bot::TakeNote); the runner checks its bounds before
// sending it, and marks every reply it makes itself because the bot's code failed.
#pragma once

#include <cstddef>
#include <map>
#include <stdexcept>
#include <string>

#include "rookery/v1/notes.pb.h"

namespace rookery {

// The bounds of a BotNote and a Fallback.
constexpr std::size_t kMaxNoteTextBytes = 512;        // bytes of UTF-8 in a note's text
constexpr std::size_t kMaxNoteValues = 16;            // named numbers in a note
constexpr std::size_t kMaxNoteNameChars = 32;         // characters of a name (1.., [A-Za-z0-9_.-])
constexpr std::size_t kMaxFallbackReasonBytes = 256;  // bytes of UTF-8 in a fallback's reason

// A bot's note on one reply: e.g. Note{"pimc: 400 samples", {{"samples", 400}, {"ev", 31.5}}}.
// Private to the seat until the hand is scored; public after, like the hand's cards.
struct Note {
  std::string text;
  std::map<std::string, double> values;
};

// Thrown by ValidateNote: the message names the bound the note breaks.
class NoteError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Checks the bounds of BotNote; throws NoteError.
void ValidateNote(const Note& note);
// The protocol message, once the note is within its bounds (throws NoteError otherwise).
v1::BotNote NoteToProto(const Note& note);
// The Fallback mark with `reason`, cut to kMaxFallbackReasonBytes at a character.
v1::Fallback FallbackMark(const std::string& reason);

}  // namespace rookery
