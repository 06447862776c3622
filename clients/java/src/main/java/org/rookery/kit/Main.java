package org.rookery.kit;

/**
 * The sample bot: {@code java -jar rookery-java-bot.jar --server HOST:PORT --name NAME}. Put your
 * own logic in a {@link Bot} implementation (see {@link SampleBot}) and hand its factory to {@link
 * BotRunner}.
 */
public final class Main {
  private Main() {}

  public static void main(String[] args) throws InterruptedException {
    Config config;
    try {
      config = Config.parse(args, System.getenv(), "java-sample");
    } catch (ClientException e) {
      System.err.println("rookery-java-bot: " + e.getMessage());
      System.exit(e.exitCode());
      return;
    }
    if (config.help) {
      System.out.println("usage: rookery-java-bot [options]\n" + Config.USAGE);
      return;
    }
    // One bot per table: the factory is called for every table the server seats this bot at.
    BotRunner runner = new BotRunner(config, table -> new SampleBot(System.getenv("ROOKERY_SAMPLE_FAULT")));
    try {
      BotRunner.Stats stats = runner.run();
      System.err.println("[rookery] done: " + stats);
      System.exit(0);
    } catch (ClientException e) {
      System.err.println("rookery-java-bot: " + e.getMessage());
      System.exit(e.exitCode());
    }
  }
}
