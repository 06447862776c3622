package org.rookery.kit;

/** Why a run stopped with an error; {@link #exitCode()} maps each kind to the process exit code. */
public final class ClientException extends Exception {
  /** The kinds of failure, with their exit codes (as {@code rookery bot run}'s). */
  public enum Kind {
    /** Bad command-line arguments. */
    USAGE(2),
    /** The server refused the token (UNAUTHENTICATED). */
    TOKEN_REJECTED(3),
    /** The server could not be reached, or not again after a drop, in time. */
    UNREACHABLE(4),
    /** The server refused the session (INVALID_ARGUMENT, RESOURCE_EXHAUSTED, ...). */
    REFUSED(5);

    final int exitCode;

    Kind(int exitCode) {
      this.exitCode = exitCode;
    }
  }

  private final Kind kind;

  public ClientException(Kind kind, String message) {
    super(message);
    this.kind = kind;
  }

  public Kind kind() {
    return kind;
  }

  public int exitCode() {
    return kind.exitCode;
  }
}
