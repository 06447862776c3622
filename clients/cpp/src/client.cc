#include "rookery/client.h"

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <iostream>
#include <mutex>
#include <optional>
#include <thread>
#include <variant>

#include <pthread.h>

#include "rookery/actions.h"

namespace rookery {

const char* const kUsage =
    "options (flags override the environment):\n"
    "  --server HOST:PORT     the server (env ROOKERY_SERVER; default 127.0.0.1:50051)\n"
    "  --token TOKEN          the bot's token in token mode (env ROOKERY_TOKEN)\n"
    "  --name NAME            the bot's registered name (env ROOKERY_BOT_NAME)\n"
    "  --version VERSION      the bot's version (env ROOKERY_BOT_VERSION; default none)\n"
    "  --max-tables N         tables to play at once (env ROOKERY_MAX_TABLES; default 1)\n"
    "  --games N              exit after N finished games (default 0: until stopped)\n"
    "  --connect-timeout S    seconds to wait for the server at start (default 10)\n"
    "  --verbose              log every action\n"
    "  --no-batching          send and receive every message alone (default: batching)\n"
    "exit codes: 0 done; 1 unexpected error; 2 bad arguments; 3 token rejected;\n"
    "4 server unreachable; 5 session refused by the server (docs/dev/kit-contract.md)";

namespace {

void Log(const std::string& message) { std::cerr << "[rookery] " << message << std::endl; }

std::string Env(const char* key, const std::string& fallback) {
  const char* value = std::getenv(key);
  return value && *value ? std::string(value) : fallback;
}

ClientError Usage(const std::string& message) {
  return ClientError(ClientError::Kind::kUsage, message + "\n" + kUsage);
}

int Number(const std::string& flag, const std::string& value) {
  size_t used = 0;
  int n = -1;
  try {
    n = std::stoi(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != value.size() || n < 0) throw Usage(flag + " needs a whole number, got \"" + value + "\"");
  return n;
}

}  // namespace

Config ParseConfig(int argc, char** argv, const std::string& default_name) {
  Config c;
  c.server = Env("ROOKERY_SERVER", c.server);
  c.token = Env("ROOKERY_TOKEN", "");
  c.name = Env("ROOKERY_BOT_NAME", default_name);
  c.version = Env("ROOKERY_BOT_VERSION", "");
  try {
    c.max_tables = std::max(1, std::stoi(Env("ROOKERY_MAX_TABLES", "1")));
  } catch (const std::exception&) {
    c.max_tables = 1;
  }
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    std::optional<std::string> value;
    auto eq = flag.find('=');
    if (flag.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = flag.substr(eq + 1);
      flag = flag.substr(0, eq);
    }
    if (flag == "--help" || flag == "-h") {
      c.help = true;
      return c;
    }
    if (flag == "--verbose") {
      c.verbose = true;
      continue;
    }
    if (flag == "--no-batching") {
      c.batching = false;
      continue;
    }
    if (!value) {
      if (i + 1 >= argc) throw Usage(flag + " needs a value");
      value = argv[++i];
    }
    if (flag == "--server") c.server = *value;
    else if (flag == "--token") c.token = *value;
    else if (flag == "--name") c.name = *value;
    else if (flag == "--version") c.version = *value;
    else if (flag == "--max-tables") c.max_tables = std::max(1, Number(flag, *value));
    else if (flag == "--games") c.games = Number(flag, *value);
    else if (flag == "--connect-timeout") c.connect_timeout = std::chrono::seconds(Number(flag, *value));
    else throw Usage("unknown option " + flag);
  }
  if (c.name.empty()) throw Usage("the bot needs a name (--name or ROOKERY_BOT_NAME)");
  return c;
}

std::string Stats::ToString() const {
  return "games=" + std::to_string(games) + " actions=" + std::to_string(actions) +
         " fallbacks=" + std::to_string(fallbacks) + " rejections=" + std::to_string(rejections) +
         " reconnects=" + std::to_string(reconnects) + " resumes=" + std::to_string(resumes) +
         " batches_received=" + std::to_string(batches_received) +
         " batches_sent=" + std::to_string(batches_sent);
}

std::vector<v1::ConnectRequest> Pack(std::vector<v1::ConnectRequest> requests, bool batching) {
  if (!batching || requests.size() < 2) return requests;
  std::vector<v1::ConnectRequest> packed;
  std::vector<v1::ConnectRequest> run;  // consecutive replies
  auto flush = [&] {
    if (run.size() == 1) {
      packed.push_back(std::move(run.front()));
    } else if (run.size() > 1) {
      v1::ConnectRequest batch;
      for (auto& reply : run) *batch.mutable_batch()->add_replies() = std::move(*reply.mutable_action_reply());
      packed.push_back(std::move(batch));
    }
    run.clear();
  };
  for (auto& request : requests) {
    if (request.has_action_reply()) {
      run.push_back(std::move(request));
      continue;
    }
    flush();
    packed.push_back(std::move(request));
  }
  flush();
  return packed;
}

namespace {

using Clock = std::chrono::steady_clock;
using Stream = grpc::ClientReaderWriter<v1::ConnectRequest, v1::ConnectResponse>;

// What the reader thread hands over: a message, or the end of the stream with its status.
using Item = std::variant<v1::ConnectResponse, grpc::Status>;

// Messages read by the reader thread, taken by the runner's thread.
class Inbox {
 public:
  void Push(Item item) {
    std::lock_guard<std::mutex> lock(mutex_);
    items_.push_back(std::move(item));
    ready_.notify_one();
  }
  // The next item, or empty when `until` passes first.
  std::optional<Item> Pop(Clock::time_point until) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!ready_.wait_until(lock, until, [&] { return !items_.empty(); })) return std::nullopt;
    Item item = std::move(items_.front());
    items_.pop_front();
    return item;
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Item> items_;
};

struct TableState {
  std::unique_ptr<Bot> bot;
  uint64_t last_seq = 0;
  std::optional<v1::ActionRequest> open;
  bool retried = false;
};

struct StreamEnd {
  bool done = false;
  bool welcomed = false;
  std::string detail;
  std::optional<grpc::Status> status;
};

std::string StatusText(const grpc::Status& status) {
  static const char* const kNames[] = {
      "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
      "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
      "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS",
      "UNAUTHENTICATED"};
  int code = static_cast<int>(status.error_code());
  std::string name = code >= 0 && code <= 16 ? kNames[code] : std::to_string(code);
  return name + ": " + status.error_message();
}

class Runner {
 public:
  Runner(const Config& config, const BotFactory& factory) : config_(config), factory_(factory) {}

  // Handles one server message and returns what to send for it: the replies ready together packed
  // into one ReplyBatch when the stream's Welcome agreed to batching. `done` is set when
  // --games is reached.
  std::vector<v1::ConnectRequest> Receive(const v1::ConnectResponse& message, bool batching, bool& done) {
    std::vector<v1::ConnectRequest> out;
    done = Handle(message, out);
    auto packed = Pack(std::move(out), batching);
    for (const auto& request : packed) {
      if (request.has_batch()) stats_.batches_sent++;
    }
    return packed;
  }

  const Stats& stats() const { return stats_; }

  Stats Run() {
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(64 << 20);
    auto channel = grpc::CreateCustomChannel(config_.server, grpc::InsecureChannelCredentials(), args);
    auto stub = v1::BotService::NewStub(channel);
    int attempt = 0;
    bool ever_connected = false;
    auto down_since = Clock::now();
    while (true) {
      StreamEnd end = Serve(*stub);
      if (end.done) return stats_;
      std::string detail = end.status ? Classify(*end.status) : end.detail;
      if (end.welcomed) {
        ever_connected = true;
        attempt = 0;
        down_since = Clock::now();
      }
      auto waited = Clock::now() - down_since;
      auto limit = ever_connected ? config_.reconnect_timeout : config_.connect_timeout;
      if (waited >= limit) {
        char seconds[32];
        std::snprintf(seconds, sizeof seconds, "%.1f",
                      std::chrono::duration<double>(waited).count());
        throw ClientError(ClientError::Kind::kUnreachable,
                          "the server at " + config_.server + " was unreachable for " + seconds +
                              "s: " + detail + " (is `rookery serve` running there?)");
      }
      auto delay = std::chrono::milliseconds(std::min(5000, 100 << std::min(attempt, 6)));
      attempt++;
      if (ever_connected) {
        stats_.reconnects++;
        Log("stream lost (" + detail + "); reconnecting in " + std::to_string(delay.count()) + "ms");
      }
      std::this_thread::sleep_for(delay);
    }
  }

 private:
  // A retry detail for a status, or a fatal ClientError.
  std::string Classify(const grpc::Status& status) {
    std::string detail = StatusText(status);
    switch (status.error_code()) {
      case grpc::StatusCode::UNAUTHENTICATED:
        throw ClientError(ClientError::Kind::kTokenRejected,
                          "the server rejected the token: " + status.error_message() +
                              " (check --token / ROOKERY_TOKEN and --name)");
      case grpc::StatusCode::FAILED_PRECONDITION:
        if (session_id_) {
          Log("resume refused (" + detail + "); starting a new session");
          ForgetSession();
        }
        return detail;
      case grpc::StatusCode::INVALID_ARGUMENT:
      case grpc::StatusCode::RESOURCE_EXHAUSTED:
      case grpc::StatusCode::PERMISSION_DENIED:
      case grpc::StatusCode::UNIMPLEMENTED:
        throw ClientError(ClientError::Kind::kRefused, "the server refused the session: " + detail);
      default: return detail;
    }
  }

  void ForgetSession() {
    for (const auto& [id, table] : tables_) Log("table " + id + " was lost with the session");
    tables_.clear();
    session_id_.reset();
    resume_secret_.clear();
  }

  v1::ConnectRequest Hello() const {
    v1::ConnectRequest request;
    auto* hello = request.mutable_hello();
    hello->set_name(config_.name);
    hello->set_version(config_.version);
    hello->set_token(config_.token);
    hello->set_max_tables(config_.max_tables);
    hello->set_client("rookery-cpp/0.1");
    hello->set_batching(config_.batching);
    if (session_id_) {
      auto* resume = hello->mutable_resume();
      resume->set_session_id(*session_id_);
      resume->set_resume_secret(resume_secret_);
      for (const auto& [id, table] : tables_) {
        auto* cursor = resume->add_cursors();
        cursor->set_table_id(id);
        cursor->set_last_seq(table.last_seq);
      }
    }
    return request;
  }

  // One stream, from connecting to its end.
  StreamEnd Serve(v1::BotService::Stub& stub) {
    StreamEnd end;
    grpc::ClientContext context;
    std::shared_ptr<Stream> stream(stub.Connect(&context));
    auto inbox = std::make_shared<Inbox>();
    std::thread reader([stream, inbox] {
      v1::ConnectResponse message;
      while (stream->Read(&message)) inbox->Push(message);
      inbox->Push(stream->Finish());
    });
    bool resuming = session_id_.has_value();
    stream->Write(Hello());
    end = Converse(*stream, *inbox, resuming);
    context.TryCancel();
    reader.join();
    return end;
  }

  StreamEnd Converse(Stream& stream, Inbox& inbox, bool resuming) {
    StreamEnd end;
    auto first = inbox.Pop(Clock::now() + std::chrono::seconds(10));
    if (!first) {
      end.detail = "no Welcome within 10s of the Hello";
      return end;
    }
    if (auto* status = std::get_if<grpc::Status>(&*first)) {
      if (status->ok()) end.detail = "the stream ended before a Welcome";
      else end.status = *status;
      return end;
    }
    const auto& response = std::get<v1::ConnectResponse>(*first);
    if (!response.has_welcome()) {
      end.detail = "the server's first message was not a Welcome";
      return end;
    }
    const auto& welcome = response.welcome();
    if (resuming && !welcome.resumed()) ForgetSession();
    if (welcome.resumed()) stats_.resumes++;
    session_id_ = welcome.session_id();
    resume_secret_ = welcome.resume_secret();
    bool batching = welcome.batching();
    end.welcomed = true;
    Log("session " + welcome.session_id() + (welcome.resumed() ? " resumed" : " started") + " as \"" +
        config_.name + "\" at " + config_.server + " (server " + welcome.server_version() +
        ", max_tables " + std::to_string(welcome.max_tables()) + ")");
    auto ping_every = std::chrono::milliseconds(
        welcome.idle_timeout_ms() > 0 ? std::max(50, welcome.idle_timeout_ms() / 3) : 15000);
    auto next_ping = Clock::now() + ping_every;
    while (true) {
      auto item = inbox.Pop(next_ping);
      if (!item) {
        v1::ConnectRequest ping;
        ping.mutable_ping()->set_nonce(++nonce_);
        stream.Write(ping);
        next_ping = Clock::now() + ping_every;
        continue;
      }
      if (auto* status = std::get_if<grpc::Status>(&*item)) {
        if (status->ok()) end.detail = "the server closed the stream";
        else end.status = *status;
        return end;
      }
      bool done = false;
      for (const auto& request : Receive(std::get<v1::ConnectResponse>(*item), batching, done)) {
        stream.Write(request);
      }
      if (done) {
        stream.WritesDone();
        end.done = true;
        return end;
      }
    }
  }

  void NewTable(const v1::TableJoined& joined) {
    TableState state;
    state.bot = factory_(joined);
    state.bot->OnJoined(joined);
    tables_[joined.table_id()] = std::move(state);
  }

  void OnEvent(const v1::TableEvent& table_event) {
    auto it = tables_.find(table_event.table_id());
    if (it == tables_.end() || table_event.event().seq() <= it->second.last_seq) return;
    it->second.last_seq = table_event.event().seq();
    it->second.bot->OnEvent(table_event.event());
  }

  void Reply(v1::ActionReply reply, std::vector<v1::ConnectRequest>& out) {
    if (config_.verbose) {
      Log("table " + reply.table_id() + " request " + std::to_string(reply.request_id()) + ": " +
          ActionText(reply.action()));
    }
    stats_.actions++;
    v1::ConnectRequest request;
    *request.mutable_action_reply() = std::move(reply);
    out.push_back(std::move(request));
  }

  // Handles one server message (each message of a batch in turn, in order); queues replies in
  // `out`; true when --games is reached.
  bool Handle(const v1::ConnectResponse& message, std::vector<v1::ConnectRequest>& out) {
    switch (message.message_case()) {
      case v1::ConnectResponse::kBatch: {
        stats_.batches_received++;
        for (const auto& inner : message.batch().messages()) {
          if (Handle(inner, out)) return true;
        }
        break;
      }
      case v1::ConnectResponse::kTableJoined: {
        const auto& joined = message.table_joined();
        Log("joined table " + joined.table_id() + " at seat " + std::to_string(joined.seat()));
        NewTable(joined);
        break;
      }
      case v1::ConnectResponse::kEvent: OnEvent(message.event()); break;
      case v1::ConnectResponse::kTableSnapshot: {
        const auto& snapshot = message.table_snapshot();
        if (!tables_.count(snapshot.table().table_id())) NewTable(snapshot.table());
        Log("table " + snapshot.table().table_id() + " resumed with " +
            std::to_string(snapshot.missed_events_size()) + " missed events");
        for (const auto& missed : snapshot.missed_events()) OnEvent(missed);
        break;
      }
      case v1::ConnectResponse::kActionRequest: {
        const auto& request = message.action_request();
        const std::string& table_id = request.table_id();
        if (!tables_.count(table_id)) {
          // A request for a table we were not told about: play it with a fresh bot.
          v1::TableJoined joined;
          joined.set_table_id(table_id);
          joined.set_seat(request.seat());
          NewTable(joined);
        }
        auto& table = tables_[table_id];
        std::optional<v1::Action> chosen;
        std::string failure;
        try {
          chosen = table.bot->Act(request);
          if (!IsLegal(*chosen, request.legal_actions())) {
            failure = "Act returned the illegal action \"" + ActionText(*chosen) + "\"";
          }
        } catch (const std::exception& e) {
          failure = std::string("Act threw ") + e.what();
        } catch (...) {
          failure = "Act threw an exception";
        }
        v1::ActionReply reply;
        reply.set_table_id(table_id);
        reply.set_request_id(request.request_id());
        std::optional<v1::Action> action = chosen;
        if (!failure.empty()) {
          stats_.fallbacks++;
          Log("table " + table_id + ": " + failure + "; sending the first legal action");
          if (auto first = FirstLegal(request.legal_actions())) action = first;
          *reply.mutable_fallback() = FallbackMark(failure);
        } else {
          try {
            if (auto note = table.bot->TakeNote()) *reply.mutable_note() = NoteToProto(*note);
          } catch (const std::exception& e) {
            Log("table " + table_id + ": the bot's note was not sent: " + e.what());
          }
        }
        table.open = request;
        table.retried = false;
        if (action) {
          *reply.mutable_action() = *action;
          Reply(std::move(reply), out);
        }
        break;
      }
      case v1::ConnectResponse::kActionRejected: {
        const auto& rejected = message.action_rejected();
        stats_.rejections++;
        Log("table " + rejected.table_id() + " request " + std::to_string(rejected.request_id()) +
            ": action rejected: " + v1::RejectionReason_Name(rejected.reason()) + ": " + rejected.message());
        bool retry = rejected.reason() == v1::REJECTION_REASON_ILLEGAL_ACTION ||
                     rejected.reason() == v1::REJECTION_REASON_MALFORMED_ACTION;
        auto it = tables_.find(rejected.table_id());
        if (retry && it != tables_.end() && it->second.open &&
            it->second.open->request_id() == rejected.request_id() && !it->second.retried) {
          it->second.retried = true;
          if (auto first = FirstLegal(it->second.open->legal_actions())) {
            stats_.fallbacks++;
            v1::ActionReply reply;
            reply.set_table_id(rejected.table_id());
            reply.set_request_id(rejected.request_id());
            *reply.mutable_action() = *first;
            *reply.mutable_fallback() = FallbackMark("the server rejected the bot's action: " + rejected.message());
            Reply(std::move(reply), out);
          }
        }
        break;
      }
      case v1::ConnectResponse::kTableFinished: {
        const auto& finished = message.table_finished();
        auto it = tables_.find(finished.table_id());
        if (it != tables_.end()) {
          it->second.bot->OnFinished(finished);
          tables_.erase(it);
        }
        stats_.games++;
        const auto& result = finished.result();
        std::string winners, scores;
        for (int w : result.winners()) winners += (winners.empty() ? "" : ", ") + std::to_string(w);
        for (int s : result.scores()) scores += (scores.empty() ? "" : ", ") + std::to_string(s);
        Log("table " + finished.table_id() + " finished: " + v1::TerminationReason_Name(result.reason()) +
            ", winners [" + winners + "], scores [" + scores + "]");
        return config_.games > 0 && stats_.games >= config_.games;
      }
      default: break;
    }
    return false;
  }

  const Config& config_;
  const BotFactory& factory_;
  std::map<std::string, TableState> tables_;
  std::optional<std::string> session_id_;
  std::string resume_secret_;
  uint64_t nonce_ = 0;
  Stats stats_;
};

}  // namespace

Stats Run(const Config& config, const BotFactory& factory) { return Runner(config, factory).Run(); }

// Once a stop signal has won (see RunMain), its thread writes the summary line and ends the
// process: the run's objects must outlive that, so the caller waits here for the end.
[[noreturn]] static void AwaitTheStop() {
  while (true) std::this_thread::sleep_for(std::chrono::seconds(1));
}

int RunMain(int argc, char** argv, const std::string& program, const std::string& default_name,
            const BotFactory& factory, const std::function<void(Config&)>& configure) {
  // Whether the run has said its last word, or a stop signal has (one of them, once).
  static std::atomic<bool> ended{false};
  Config config;
  std::optional<Runner> runner;
  try {
    config = ParseConfig(argc, argv, default_name);
    if (config.help) {
      std::cout << "usage: " << program << " [options]\n" << kUsage << std::endl;
      return 0;
    }
    if (configure) configure(config);
    runner.emplace(config, factory);
    // SIGINT or SIGTERM stops the bot: exit 0 with the summary line (the kit contract). Both are
    // blocked here, before gRPC starts its threads (which inherit the mask), and one thread of our
    // own waits for them.
    sigset_t stop_signals;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGINT);
    sigaddset(&stop_signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
    std::thread([stop_signals, &runner] {
      int signal = 0;
      if (sigwait(&stop_signals, &signal) != 0 || ended.exchange(true)) return;
      // The counters are read while the run may still be writing them: a last look, not a sum.
      std::string line = "[rookery] done: " + runner->stats().ToString() + "\n";
      std::fputs(line.c_str(), stderr);
      std::fflush(stderr);
      std::_Exit(0);
    }).detach();
    Stats stats = runner->Run();
    if (ended.exchange(true)) AwaitTheStop();
    std::cerr << "[rookery] done: " << stats.ToString() << std::endl;
    return 0;
  } catch (const ClientError& e) {
    if (ended.exchange(true)) AwaitTheStop();
    std::cerr << program << ": " << e.what() << std::endl;
    return e.exit_code();
  } catch (const std::exception& e) {
    if (ended.exchange(true)) AwaitTheStop();
    std::cerr << program << ": unexpected error: " << e.what() << std::endl;
    return 1;
  }
}

Handled HandleMessages(const Config& config, const BotFactory& factory,
                       const std::vector<v1::ConnectResponse>& messages, bool batching) {
  Runner runner(config, factory);
  Handled handled;
  for (const auto& message : messages) {
    bool done = false;
    for (auto& request : runner.Receive(message, batching, done)) handled.sent.push_back(std::move(request));
    if (done) break;
  }
  handled.stats = runner.stats();
  return handled;
}

}  // namespace rookery
