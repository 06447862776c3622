package org.rookery.kit;

import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;
import rookery.v1.Notes.BotNote;
import rookery.v1.Notes.Fallback;

/**
 * A bot's note on one reply (BotNote in proto/rookery/v1/notes.proto): free text and named numbers
 * such as samples searched or expected points. Private to the seat until the hand is scored;
 * public after, like the hand's cards. Built with {@code Note.of("text").with("samples", 400)};
 * {@link #validate} throws an {@link IllegalArgumentException} naming the bound a note breaks.
 */
public final class Note {
  /** The most bytes of UTF-8 in a note's text. */
  public static final int MAX_TEXT_BYTES = 512;
  /** The most named numbers in a note. */
  public static final int MAX_VALUES = 16;
  /** The longest name of a note's number, in characters (at least 1, of [A-Za-z0-9_.-]). */
  public static final int MAX_NAME_CHARS = 32;
  /** The most bytes of UTF-8 in a fallback's reason (longer ones are cut at a character). */
  public static final int MAX_FALLBACK_REASON_BYTES = 256;

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]{1,32}");

  private final String text;
  private final Map<String, Double> values;

  private Note(String text, Map<String, Double> values) {
    this.text = text;
    this.values = values;
  }

  /** A note with {@code text} and no numbers. */
  public static Note of(String text) {
    return new Note(text, new LinkedHashMap<>());
  }

  /** This note with the number {@code name} set to {@code value}. */
  public Note with(String name, double value) {
    Map<String, Double> more = new LinkedHashMap<>(values);
    more.put(name, value);
    return new Note(text, more);
  }

  public String text() {
    return text;
  }

  public Map<String, Double> values() {
    return Collections.unmodifiableMap(values);
  }

  /** Checks the bounds of BotNote; an IllegalArgumentException names the one broken. */
  public void validate() {
    int bytes = text.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > MAX_TEXT_BYTES) {
      throw new IllegalArgumentException(
          "note text is " + bytes + " bytes of UTF-8; at most " + MAX_TEXT_BYTES);
    }
    if (values.size() > MAX_VALUES) {
      throw new IllegalArgumentException(
          "note has " + values.size() + " values; at most " + MAX_VALUES);
    }
    for (Map.Entry<String, Double> entry : values.entrySet()) {
      if (!NAME.matcher(entry.getKey()).matches()) {
        throw new IllegalArgumentException(
            "note value name \""
                + entry.getKey()
                + "\" must be 1 to "
                + MAX_NAME_CHARS
                + " characters of [A-Za-z0-9_.-]");
      }
      if (!Double.isFinite(entry.getValue())) {
        throw new IllegalArgumentException(
            "note value \"" + entry.getKey() + "\" is " + entry.getValue() + "; values must be finite");
      }
    }
  }

  /** The protocol message, once the note is within its bounds. */
  public BotNote toProto() {
    validate();
    return BotNote.newBuilder().setText(text).putAllValues(values).build();
  }

  /** The Fallback mark with {@code reason}, cut to MAX_FALLBACK_REASON_BYTES at a character. */
  public static Fallback fallback(String reason) {
    String cut = reason;
    while (cut.getBytes(StandardCharsets.UTF_8).length > MAX_FALLBACK_REASON_BYTES) {
      cut = cut.substring(0, cut.offsetByCodePoints(cut.length(), -1));
    }
    return Fallback.newBuilder().setReason(cut).build();
  }
}
