#include "rookery/note.h"

#include <cmath>

namespace rookery {

namespace {

bool GoodName(const std::string& name) {
  if (name.empty() || name.size() > kMaxNoteNameChars) return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
              c == '.' || c == '-';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

void ValidateNote(const Note& note) {
  if (note.text.size() > kMaxNoteTextBytes) {
    throw NoteError("note text is " + std::to_string(note.text.size()) + " bytes of UTF-8; at most " +
                    std::to_string(kMaxNoteTextBytes));
  }
  if (note.values.size() > kMaxNoteValues) {
    throw NoteError("note has " + std::to_string(note.values.size()) + " values; at most " +
                    std::to_string(kMaxNoteValues));
  }
  for (const auto& [name, value] : note.values) {
    if (!GoodName(name)) {
      throw NoteError("note value name \"" + name + "\" must be 1 to " + std::to_string(kMaxNoteNameChars) +
                      " characters of [A-Za-z0-9_.-]");
    }
    if (!std::isfinite(value)) {
      throw NoteError("note value \"" + name + "\" is not finite; values must be finite");
    }
  }
}

v1::BotNote NoteToProto(const Note& note) {
  ValidateNote(note);
  v1::BotNote proto;
  proto.set_text(note.text);
  for (const auto& [name, value] : note.values) (*proto.mutable_values())[name] = value;
  return proto;
}

v1::Fallback FallbackMark(const std::string& reason) {
  std::size_t end = std::min(reason.size(), kMaxFallbackReasonBytes);
  // Back up to the start of a UTF-8 character (continuation bytes are 10xxxxxx).
  while (end > 0 && end < reason.size() && (static_cast<unsigned char>(reason[end]) & 0xC0) == 0x80) --end;
  v1::Fallback mark;
  mark.set_reason(reason.substr(0, end));
  return mark;
}

}  // namespace rookery
