package org.rookery.kit;

import rookery.v1.Actions.Action;
import rookery.v1.BotServiceOuterClass.ActionRequest;
import rookery.v1.BotServiceOuterClass.TableFinished;
import rookery.v1.BotServiceOuterClass.TableJoined;
import rookery.v1.Events.Event;

/**
 * A bot: one instance per table, made by the factory handed to {@link BotRunner}. Only {@link
 * #act} is required; the calls for one table come in order, on the runner's thread.
 */
public interface Bot {
  /** The bot was seated at a table (also after a resume, for a table it did not know). */
  default void onJoined(TableJoined table) {}

  /** An event at the table, in order, without duplicates. */
  default void onEvent(Event event) {}

  /**
   * The bot must act: choose one of {@code request.getLegalActions()}. An exception here, or an
   * action that is not legal, makes the runner send a legal fallback marked with {@code
   * ActionReply.fallback} instead (docs/dev/kit-contract.md).
   */
  Action act(ActionRequest request);

  /**
   * The note on the action {@link #act} just returned, or null: called right after each act. A
   * note outside the bounds of BotNote is dropped with a logged error; the action still goes.
   */
  default Note note() {
    return null;
  }

  /** The table's game ended. */
  default void onFinished(TableFinished finished) {}
}
