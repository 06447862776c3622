package org.rookery.kit;

/**
 * The sample bot: {@code java -jar rookery-java-bot.jar --server HOST:PORT --name NAME}. Put your
 * own logic in a {@link Bot} implementation (see {@link SampleBot}) and hand its factory to {@link
 * BotRunner#runMain}.
 */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    // One bot per table: the factory is called for every table the server seats this bot at.
    System.exit(
        BotRunner.runMain(
            args,
            "rookery-java-bot",
            "java-sample",
            table -> new SampleBot(System.getenv("ROOKERY_SAMPLE_FAULT"))));
  }
}
