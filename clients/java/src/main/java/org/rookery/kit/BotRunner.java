package org.rookery.kit;

import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Function;
import rookery.v1.Actions.Action;
import rookery.v1.Actions.LegalActions;
import rookery.v1.BotServiceGrpc;
import rookery.v1.BotServiceOuterClass.ActionRejected;
import rookery.v1.BotServiceOuterClass.ActionReply;
import rookery.v1.BotServiceOuterClass.ActionRequest;
import rookery.v1.BotServiceOuterClass.ConnectRequest;
import rookery.v1.BotServiceOuterClass.ConnectResponse;
import rookery.v1.BotServiceOuterClass.Hello;
import rookery.v1.BotServiceOuterClass.Ping;
import rookery.v1.BotServiceOuterClass.RejectionReason;
import rookery.v1.BotServiceOuterClass.ReplyBatch;
import rookery.v1.BotServiceOuterClass.Resume;
import rookery.v1.BotServiceOuterClass.TableCursor;
import rookery.v1.BotServiceOuterClass.TableEvent;
import rookery.v1.BotServiceOuterClass.TableFinished;
import rookery.v1.BotServiceOuterClass.TableJoined;
import rookery.v1.BotServiceOuterClass.TableSnapshot;
import rookery.v1.BotServiceOuterClass.Welcome;
import rookery.v1.Events.Event;
import rookery.v1.Results.GameResult;

/**
 * The session runner: connect, hello, play many tables at once (one {@link Bot} per table, made by
 * the factory), answer requests, ping, reconnect with backoff and resume after a dropped stream.
 * Everything runs on the calling thread; gRPC's threads only queue the server's messages.
 */
public final class BotRunner {
  /** What a run did. */
  public static final class Stats {
    /** Tables whose game finished. */
    public int games;
    /** Replies sent. */
    public int actions;
    /** Replies where the bot's choice was illegal and the first legal action was sent instead. */
    public int fallbacks;
    /** ActionRejected messages received. */
    public int rejections;
    /** Streams re-opened after a drop. */
    public int reconnects;
    /** Reconnections the server accepted as resumes. */
    public int resumes;
    /** ConnectResponse.batch messages received. */
    public int batchesReceived;
    /** ConnectRequest.batch messages sent. */
    public int batchesSent;

    @Override
    public String toString() {
      return String.format(
          "games=%d actions=%d fallbacks=%d rejections=%d reconnects=%d resumes=%d"
              + " batches_received=%d batches_sent=%d",
          games, actions, fallbacks, rejections, reconnects, resumes, batchesReceived, batchesSent);
    }
  }

  private static final class TableState {
    final Bot bot;
    long lastSeq;
    ActionRequest open;
    boolean retried;

    TableState(Bot bot) {
      this.bot = bot;
    }
  }

  /** The end of one stream. */
  private static final class StreamEnd {
    boolean done;
    boolean welcomed;
    String detail;
    Status status;
  }

  private static final Object END = new Object();

  private final Config config;
  private final Function<TableJoined, Bot> factory;
  private final Map<String, TableState> tables = new HashMap<>();
  private final Stats stats = new Stats();
  private String sessionId;
  private String resumeSecret;
  private long nonce;

  public BotRunner(Config config, Function<TableJoined, Bot> factory) {
    this.config = config;
    this.factory = factory;
  }

  static void log(String message) {
    System.err.println("[rookery] " + message);
  }

  /**
   * Runs a bot as its program's main and returns the exit code for {@code System.exit}, as the
   * kit contract says a bot ends: the usage text for --help, the summary line on exit 0, else one
   * line naming the cause (2 bad arguments, 3 token rejected, 4 server unreachable, 5 session
   * refused, 1 anything else), never a stack trace.
   *
   * @param program starts the lines it writes
   * @param configure may change the parsed Config first (e.g. set a version); may be null
   */
  public static int runMain(
      String[] args,
      String program,
      String defaultName,
      Function<TableJoined, Bot> factory,
      Consumer<Config> configure) {
    Config config;
    try {
      config = Config.parse(args, System.getenv(), defaultName);
    } catch (ClientException e) {
      System.err.println(program + ": " + e.getMessage());
      return e.exitCode();
    }
    if (config.help) {
      System.out.println("usage: " + program + " [options]\n" + Config.USAGE);
      return 0;
    }
    if (configure != null) {
      configure.accept(config);
    }
    BotRunner runner = new BotRunner(config, factory);
    // SIGINT or SIGTERM stops the bot: exit 0 with the summary line (the kit contract). The JVM
    // runs its shutdown hooks on either; a run that ended first has said its own last word.
    AtomicBoolean ended = new AtomicBoolean(false);
    Thread stop =
        new Thread(
            () -> {
              if (ended.compareAndSet(false, true)) {
                System.err.println("[rookery] done: " + runner.stats);
                System.err.flush();
                Runtime.getRuntime().halt(0);
              }
            },
            "rookery-stop");
    Runtime.getRuntime().addShutdownHook(stop);
    try {
      Stats stats = runner.run();
      if (ended.compareAndSet(false, true)) {
        System.err.println("[rookery] done: " + stats);
      }
      return 0;
    } catch (ClientException e) {
      ended.set(true);
      System.err.println(program + ": " + e.getMessage());
      return e.exitCode();
    } catch (InterruptedException e) {
      ended.set(true);
      Thread.currentThread().interrupt();
      System.err.println(program + ": interrupted");
      return 1;
    } catch (RuntimeException e) {
      ended.set(true);
      System.err.println(program + ": unexpected error: " + e);
      return 1;
    } finally {
      ended.set(true);
      try {
        Runtime.getRuntime().removeShutdownHook(stop);
      } catch (IllegalStateException shuttingDown) {
        // The JVM is stopping already: the hook has run or will find the run ended.
      }
    }
  }

  /** {@link #runMain(String[], String, String, Function, Consumer)} without a configure step. */
  public static int runMain(
      String[] args, String program, String defaultName, Function<TableJoined, Bot> factory) {
    return runMain(args, program, defaultName, factory, null);
  }

  /**
   * Plays until {@code config.games} games are finished (forever when 0).
   *
   * @throws ClientException when the token or the session is refused, or the server stays
   *     unreachable
   */
  public Stats run() throws ClientException, InterruptedException {
    ManagedChannel channel =
        ManagedChannelBuilder.forTarget(config.server)
            .usePlaintext()
            .maxInboundMessageSize(64 << 20)
            .build();
    try {
      int attempt = 0;
      boolean everConnected = false;
      long downSince = System.nanoTime();
      while (true) {
        StreamEnd end = serve(channel);
        if (end.done) {
          return stats;
        }
        String detail = end.detail;
        if (end.status != null) {
          detail = classify(end.status);
        }
        if (end.welcomed) {
          everConnected = true;
          attempt = 0;
          downSince = System.nanoTime();
        }
        Duration waited = Duration.ofNanos(System.nanoTime() - downSince);
        Duration limit = everConnected ? config.reconnectTimeout : config.connectTimeout;
        if (waited.compareTo(limit) >= 0) {
          throw new ClientException(
              ClientException.Kind.UNREACHABLE,
              String.format(
                  "the server at %s was unreachable for %.1fs: %s (is `rookery serve` running there?)",
                  config.server, waited.toMillis() / 1000.0, detail));
        }
        long delay = Math.min(5000, 100L << Math.min(attempt, 6));
        attempt++;
        if (everConnected) {
          stats.reconnects++;
          log("stream lost (" + detail + "); reconnecting in " + delay + "ms");
        }
        Thread.sleep(delay);
      }
    } finally {
      channel.shutdownNow();
      channel.awaitTermination(2, TimeUnit.SECONDS);
    }
  }

  /** A retry detail for a status, or a fatal {@link ClientException}. */
  private String classify(Status status) throws ClientException {
    String detail = status.getCode() + ": " + status.getDescription();
    switch (status.getCode()) {
      case UNAUTHENTICATED:
        throw new ClientException(
            ClientException.Kind.TOKEN_REJECTED,
            "the server rejected the token: "
                + status.getDescription()
                + " (check --token / ROOKERY_TOKEN and --name)");
      case FAILED_PRECONDITION:
        if (sessionId != null) {
          log("resume refused (" + detail + "); starting a new session");
          forgetSession();
        }
        return detail;
      case INVALID_ARGUMENT:
      case RESOURCE_EXHAUSTED:
      case PERMISSION_DENIED:
      case UNIMPLEMENTED:
        throw new ClientException(
            ClientException.Kind.REFUSED, "the server refused the session: " + detail);
      default:
        return detail;
    }
  }

  private void forgetSession() {
    for (String tableId : tables.keySet()) {
      log("table " + tableId + " was lost with the session");
    }
    tables.clear();
    sessionId = null;
    resumeSecret = null;
  }

  ConnectRequest hello() {
    Hello.Builder hello =
        Hello.newBuilder()
            .setName(config.name)
            .setVersion(config.version)
            .setToken(config.token)
            .setMaxTables(config.maxTables)
            .setClient("rookery-java/0.1")
            .setBatching(config.batching);
    if (sessionId != null) {
      Resume.Builder resume =
          Resume.newBuilder().setSessionId(sessionId).setResumeSecret(resumeSecret);
      tables.forEach(
          (id, t) ->
              resume.addCursors(TableCursor.newBuilder().setTableId(id).setLastSeq(t.lastSeq)));
      hello.setResume(resume);
    }
    return ConnectRequest.newBuilder().setHello(hello).build();
  }

  /** One stream, from connecting to its end. */
  private StreamEnd serve(ManagedChannel channel) throws InterruptedException {
    StreamEnd end = new StreamEnd();
    BlockingQueue<Object> inbox = new LinkedBlockingQueue<>();
    StreamObserver<ConnectResponse> responses =
        new StreamObserver<>() {
          @Override
          public void onNext(ConnectResponse value) {
            inbox.add(value);
          }

          @Override
          public void onError(Throwable t) {
            inbox.add(Status.fromThrowable(t));
          }

          @Override
          public void onCompleted() {
            inbox.add(END);
          }
        };
    StreamObserver<ConnectRequest> out = BotServiceGrpc.newStub(channel).connect(responses);
    boolean resuming = sessionId != null;
    out.onNext(hello());
    try {
      Object first = inbox.poll(10, TimeUnit.SECONDS);
      if (first == null) {
        end.detail = "no Welcome within 10s of the Hello";
        return end;
      }
      if (!(first instanceof ConnectResponse) || !((ConnectResponse) first).hasWelcome()) {
        return ended(end, first, "the stream ended before a Welcome");
      }
      Welcome welcome = ((ConnectResponse) first).getWelcome();
      if (resuming && !welcome.getResumed()) {
        forgetSession();
      }
      if (welcome.getResumed()) {
        stats.resumes++;
      }
      sessionId = welcome.getSessionId();
      resumeSecret = welcome.getResumeSecret();
      boolean batching = welcome.getBatching();
      end.welcomed = true;
      log(
          String.format(
              "session %s %s as \"%s\" at %s (server %s, max_tables %d)",
              welcome.getSessionId(),
              welcome.getResumed() ? "resumed" : "started",
              config.name,
              config.server,
              welcome.getServerVersion(),
              welcome.getMaxTables()));
      long pingEveryMs =
          welcome.getIdleTimeoutMs() > 0 ? Math.max(50, welcome.getIdleTimeoutMs() / 3) : 15000;
      long nextPing = System.nanoTime() + pingEveryMs * 1_000_000L;
      while (true) {
        long waitMs = Math.max(0, (nextPing - System.nanoTime()) / 1_000_000L);
        Object item = inbox.poll(waitMs, TimeUnit.MILLISECONDS);
        if (item == null) {
          out.onNext(
              ConnectRequest.newBuilder().setPing(Ping.newBuilder().setNonce(++nonce)).build());
          nextPing = System.nanoTime() + pingEveryMs * 1_000_000L;
          continue;
        }
        if (!(item instanceof ConnectResponse)) {
          return ended(end, item, "the server closed the stream");
        }
        List<ConnectRequest> replies = new ArrayList<>();
        boolean done = handle((ConnectResponse) item, replies);
        for (ConnectRequest request : pack(replies, batching)) {
          if (request.hasBatch()) {
            stats.batchesSent++;
          }
          out.onNext(request);
        }
        if (done) {
          end.done = true;
          out.onCompleted();
          return end;
        }
      }
    } catch (RuntimeException e) {
      out.onError(e);
      throw e;
    }
  }

  private static StreamEnd ended(StreamEnd end, Object item, String detail) {
    if (item instanceof Status && !((Status) item).isOk()) {
      end.status = (Status) item;
    } else {
      end.detail = detail;
    }
    return end;
  }

  private void newTable(TableJoined joined) {
    Bot bot = factory.apply(joined);
    bot.onJoined(joined);
    tables.put(joined.getTableId(), new TableState(bot));
  }

  private void onEvent(TableEvent tableEvent) {
    TableState table = tables.get(tableEvent.getTableId());
    Event event = tableEvent.getEvent();
    if (table == null || event.getSeq() <= table.lastSeq) {
      return;
    }
    table.lastSeq = event.getSeq();
    table.bot.onEvent(event);
  }

  private void reply(ActionReply reply, List<ConnectRequest> out) {
    if (config.verbose) {
      log(
          "table "
              + reply.getTableId()
              + " request "
              + reply.getRequestId()
              + ": "
              + ActionsUtil.text(reply.getAction()));
    }
    stats.actions++;
    out.add(ConnectRequest.newBuilder().setActionReply(reply).build());
  }

  /**
   * The messages to send for {@code requests}: with {@code batching} (the Welcome agreed to it),
   * each run of two or more consecutive replies packed into one ReplyBatch; otherwise {@code
   * requests} unchanged.
   */
  static List<ConnectRequest> pack(List<ConnectRequest> requests, boolean batching) {
    if (!batching || requests.size() < 2) {
      return requests;
    }
    List<ConnectRequest> packed = new ArrayList<>();
    List<ConnectRequest> run = new ArrayList<>();
    for (ConnectRequest request : requests) {
      if (request.hasActionReply()) {
        run.add(request);
        continue;
      }
      flush(run, packed);
      packed.add(request);
    }
    flush(run, packed);
    return packed;
  }

  private static void flush(List<ConnectRequest> run, List<ConnectRequest> packed) {
    if (run.size() == 1) {
      packed.add(run.get(0));
    } else if (run.size() > 1) {
      ReplyBatch.Builder batch = ReplyBatch.newBuilder();
      run.forEach(r -> batch.addReplies(r.getActionReply()));
      packed.add(ConnectRequest.newBuilder().setBatch(batch).build());
    }
    run.clear();
  }

  /** What the run did so far. */
  Stats stats() {
    return stats;
  }

  /**
   * Handles one server message (each message of a batch in turn); queues replies in {@code out};
   * true when {@code --games} is reached.
   */
  boolean handle(ConnectResponse message, List<ConnectRequest> out) {
    switch (message.getMessageCase()) {
      case BATCH:
        // Several messages in one, in order: each handled as if it came alone. Replies to them
        // collect in `out`, so those ready together can go as one ReplyBatch.
        stats.batchesReceived++;
        for (ConnectResponse inner : message.getBatch().getMessagesList()) {
          if (handle(inner, out)) {
            return true;
          }
        }
        break;
      case TABLE_JOINED:
        {
          TableJoined joined = message.getTableJoined();
          log("joined table " + joined.getTableId() + " at seat " + joined.getSeat());
          newTable(joined);
          break;
        }
      case EVENT:
        onEvent(message.getEvent());
        break;
      case TABLE_SNAPSHOT:
        {
          TableSnapshot snapshot = message.getTableSnapshot();
          TableJoined joined = snapshot.getTable();
          if (!tables.containsKey(joined.getTableId())) {
            newTable(joined);
          }
          log(
              "table "
                  + joined.getTableId()
                  + " resumed with "
                  + snapshot.getMissedEventsCount()
                  + " missed events");
          snapshot.getMissedEventsList().forEach(this::onEvent);
          break;
        }
      case ACTION_REQUEST:
        {
          ActionRequest request = message.getActionRequest();
          String tableId = request.getTableId();
          if (!tables.containsKey(tableId)) {
            // A request for a table we were not told about: play it with a fresh bot.
            newTable(TableJoined.newBuilder().setTableId(tableId).setSeat(request.getSeat()).build());
          }
          TableState table = tables.get(tableId);
          LegalActions legal = request.getLegalActions();
          Action chosen;
          String failure = null;
          try {
            chosen = table.bot.act(request);
            if (chosen == null) {
              failure = "act returned no action";
            } else if (!ActionsUtil.isLegal(chosen, legal)) {
              failure = "act returned the illegal action \"" + ActionsUtil.text(chosen) + "\"";
            }
          } catch (RuntimeException e) {
            failure = "act threw " + e;
            chosen = null;
          }
          ActionReply.Builder reply =
              ActionReply.newBuilder().setTableId(tableId).setRequestId(request.getRequestId());
          if (failure != null) {
            stats.fallbacks++;
            log("table " + tableId + ": " + failure + "; sending the first legal action");
            Action first = ActionsUtil.firstLegal(legal);
            chosen = first != null ? first : chosen;
            reply.setFallback(Note.fallback(failure));
          } else {
            try {
              Note note = table.bot.note();
              if (note != null) {
                reply.setNote(note.toProto());
              }
            } catch (RuntimeException e) {
              log("table " + tableId + ": the bot's note was not sent: " + e.getMessage());
            }
          }
          table.open = request;
          table.retried = false;
          if (chosen != null) {
            reply(reply.setAction(chosen).build(), out);
          }
          break;
        }
      case ACTION_REJECTED:
        {
          ActionRejected rejected = message.getActionRejected();
          stats.rejections++;
          log(
              String.format(
                  "table %s request %d: action rejected: %s: %s",
                  rejected.getTableId(),
                  rejected.getRequestId(),
                  rejected.getReason(),
                  rejected.getMessage()));
          TableState table = tables.get(rejected.getTableId());
          boolean retry =
              rejected.getReason() == RejectionReason.REJECTION_REASON_ILLEGAL_ACTION
                  || rejected.getReason() == RejectionReason.REJECTION_REASON_MALFORMED_ACTION;
          if (retry
              && table != null
              && table.open != null
              && table.open.getRequestId() == rejected.getRequestId()
              && !table.retried) {
            table.retried = true;
            Action first = ActionsUtil.firstLegal(table.open.getLegalActions());
            if (first != null) {
              stats.fallbacks++;
              reply(
                  ActionReply.newBuilder()
                      .setTableId(rejected.getTableId())
                      .setRequestId(rejected.getRequestId())
                      .setAction(first)
                      .setFallback(
                          Note.fallback(
                              "the server rejected the bot's action: " + rejected.getMessage()))
                      .build(),
                  out);
            }
          }
          break;
        }
      case TABLE_FINISHED:
        {
          TableFinished finished = message.getTableFinished();
          TableState table = tables.remove(finished.getTableId());
          if (table != null) {
            table.bot.onFinished(finished);
          }
          stats.games++;
          GameResult result = finished.getResult();
          log(
              String.format(
                  "table %s finished: %s, winners %s, scores %s",
                  finished.getTableId(),
                  result.getReason(),
                  result.getWinnersList(),
                  result.getScoresList()));
          return config.games > 0 && stats.games >= config.games;
        }
      default:
        break;
    }
    return false;
  }
}
