package org.rookery.kit;

import java.time.Duration;
import java.util.Map;

/** How to connect and who the bot is: flags over the environment. */
public final class Config {
  public static final String USAGE =
      String.join(
          "\n",
          "options (flags override the environment):",
          "  --server HOST:PORT     the server (env ROOKERY_SERVER; default 127.0.0.1:50051)",
          "  --token TOKEN          the bot's token in token mode (env ROOKERY_TOKEN)",
          "  --name NAME            the bot's registered name (env ROOKERY_BOT_NAME)",
          "  --version VERSION      the bot's version (env ROOKERY_BOT_VERSION; default none)",
          "  --max-tables N         tables to play at once (env ROOKERY_MAX_TABLES; default 1)",
          "  --games N              exit after N finished games (default 0: until stopped)",
          "  --connect-timeout S    seconds to wait for the server at start (default 10)",
          "  --verbose              log every action",
          "  --no-batching          send and receive every message alone (default: batching)",
          "exit codes: 0 done; 1 unexpected error; 2 bad arguments; 3 token rejected;",
          "4 server unreachable; 5 session refused by the server (docs/dev/kit-contract.md)");

  public String server = "127.0.0.1:50051";
  public String token = "";
  public String name;
  public String version = "";
  public int maxTables = 1;
  public int games = 0;
  public Duration connectTimeout = Duration.ofSeconds(10);
  public Duration reconnectTimeout = Duration.ofSeconds(60);
  public boolean verbose = false;
  /**
   * Offer batching (Hello.batching): several messages per gRPC message both ways when the server
   * agrees. On by default; {@code --no-batching} turns it off.
   */
  public boolean batching = true;
  /** True when --help was given. */
  public boolean help = false;

  /** Reads the flags in {@code args} over the environment {@code env}. */
  public static Config parse(String[] args, Map<String, String> env, String defaultName)
      throws ClientException {
    Config c = new Config();
    c.server = nonEmpty(env.get("ROOKERY_SERVER"), c.server);
    c.token = nonEmpty(env.get("ROOKERY_TOKEN"), "");
    c.name = nonEmpty(env.get("ROOKERY_BOT_NAME"), defaultName);
    c.version = nonEmpty(env.get("ROOKERY_BOT_VERSION"), "");
    try {
      c.maxTables = Math.max(1, Integer.parseInt(nonEmpty(env.get("ROOKERY_MAX_TABLES"), "1")));
    } catch (NumberFormatException e) {
      c.maxTables = 1;
    }
    for (int i = 0; i < args.length; i++) {
      String flag = args[i];
      String value = null;
      int eq = flag.indexOf('=');
      if (flag.startsWith("--") && eq > 0) {
        value = flag.substring(eq + 1);
        flag = flag.substring(0, eq);
      }
      if (flag.equals("--help") || flag.equals("-h")) {
        c.help = true;
        return c;
      }
      if (flag.equals("--verbose")) {
        c.verbose = true;
        continue;
      }
      if (flag.equals("--no-batching")) {
        c.batching = false;
        continue;
      }
      if (value == null) {
        if (i + 1 >= args.length) {
          throw usage(flag + " needs a value");
        }
        value = args[++i];
      }
      switch (flag) {
        case "--server":
          c.server = value;
          break;
        case "--token":
          c.token = value;
          break;
        case "--name":
          c.name = value;
          break;
        case "--version":
          c.version = value;
          break;
        case "--max-tables":
          c.maxTables = Math.max(1, number(flag, value));
          break;
        case "--games":
          c.games = number(flag, value);
          break;
        case "--connect-timeout":
          c.connectTimeout = Duration.ofSeconds(number(flag, value));
          break;
        default:
          throw usage("unknown option " + flag);
      }
    }
    if (c.name == null || c.name.isEmpty()) {
      throw usage("the bot needs a name (--name or ROOKERY_BOT_NAME)");
    }
    return c;
  }

  private static String nonEmpty(String value, String fallback) {
    return value == null || value.isEmpty() ? fallback : value;
  }

  private static int number(String flag, String value) throws ClientException {
    try {
      int n = Integer.parseInt(value);
      if (n < 0) {
        throw new NumberFormatException();
      }
      return n;
    } catch (NumberFormatException e) {
      throw usage(flag + " needs a whole number, got \"" + value + "\"");
    }
  }

  private static ClientException usage(String message) {
    return new ClientException(ClientException.Kind.USAGE, message + "\n" + USAGE);
  }
}
