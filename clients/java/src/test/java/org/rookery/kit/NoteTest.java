package org.rookery.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class NoteTest {
  @Test
  void aNoteWithinBoundsConverts() {
    Note note = Note.of("x".repeat(512)).with("samples", 400).with("a.b-c_9", -1.5);
    assertEquals(2, note.toProto().getValuesCount());
  }

  @Test
  void eachBoundOfANoteIsAClearError() {
    assertTrue(message(Note.of("é".repeat(257))).contains("514 bytes"));
    Note many = Note.of("");
    for (int i = 0; i < 17; i++) {
      many = many.with("v" + i, 1);
    }
    assertTrue(message(many).contains("17 values"));
    assertTrue(message(Note.of("").with("has space", 1)).contains("name \"has space\""));
    assertTrue(message(Note.of("").with("", 1)).contains("name"));
    assertTrue(message(Note.of("").with("nan", Double.NaN)).contains("finite"));
  }

  @Test
  void aFallbackReasonIsCutAtACharacter() {
    assertEquals(256, Note.fallback("é".repeat(200)).getReason().getBytes(java.nio.charset.StandardCharsets.UTF_8).length);
  }

  private static String message(Note note) {
    return assertThrows(IllegalArgumentException.class, note::validate).getMessage();
  }
}
