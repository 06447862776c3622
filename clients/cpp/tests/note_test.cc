#include "rookery/note.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace rookery {
namespace {

std::string Repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

std::string ErrorOf(const Note& note) {
  try {
    ValidateNote(note);
  } catch (const NoteError& e) {
    return e.what();
  }
  return "";
}

TEST(Note, WithinBoundsConverts) {
  Note note{Repeat("x", 512), {{"samples", 400}, {"a.b-c_9", -1.5}}};
  EXPECT_EQ(NoteToProto(note).values_size(), 2);
}

TEST(Note, EachBoundIsAClearError) {
  EXPECT_NE(ErrorOf(Note{Repeat("\xc3\xa9", 257), {}}).find("514 bytes"), std::string::npos);
  Note many;
  for (int i = 0; i < 17; ++i) many.values["v" + std::to_string(i)] = 1;
  EXPECT_NE(ErrorOf(many).find("17 values"), std::string::npos);
  EXPECT_NE(ErrorOf(Note{"", {{"has space", 1}}}).find("name \"has space\""), std::string::npos);
  EXPECT_NE(ErrorOf(Note{"", {{"", 1}}}).find("name"), std::string::npos);
  EXPECT_NE(ErrorOf(Note{"", {{"nan", std::nan("")}}}).find("finite"), std::string::npos);
}

TEST(Note, AFallbackReasonIsCutAtACharacter) {
  EXPECT_EQ(FallbackMark(Repeat("\xc3\xa9", 200)).reason().size(), 256u);
  EXPECT_EQ(FallbackMark("short").reason(), "short");
}

}  // namespace
}  // namespace rookery
