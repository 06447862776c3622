// The session runner: connect, hello, play many tables at once (one Bot per table), answer
// requests, ping, reconnect with backoff and resume the session after a dropped stream.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "rookery/note.h"
#include "rookery/v1/bot_service.grpc.pb.h"
#include "rookery/v1/bot_service.pb.h"

namespace rookery {

// A bot: one instance per table, made by the factory handed to Run. Only Act is required; the
// calls for one table come in order, on the runner's thread.
class Bot {
 public:
  virtual ~Bot() = default;
  // The bot was seated at a table (also after a resume, for a table it did not know).
  virtual void OnJoined(const v1::TableJoined& /*table*/) {}
  // An event at the table, in order, without duplicates.
  virtual void OnEvent(const v1::Event& /*event*/) {}
  // The bot must act: choose one of request.legal_actions(). An exception here, or an action that
  // is not legal, makes the runner send a legal fallback marked with ActionReply.fallback instead
  // (docs/dev/kit-contract.md).
  virtual v1::Action Act(const v1::ActionRequest& request) = 0;
  // The note on the action Act just returned, if any: called right after each Act. A note outside
  // the bounds of BotNote is dropped with a logged error; the action still goes.
  virtual std::optional<Note> TakeNote() { return std::nullopt; }
  // The table's game ended.
  virtual void OnFinished(const v1::TableFinished& /*finished*/) {}
};

using BotFactory = std::function<std::unique_ptr<Bot>(const v1::TableJoined&)>;

// How to connect and who the bot is: flags over the environment.
struct Config {
  std::string server = "127.0.0.1:50051";
  std::string token;
  std::string name;
  std::string version;  // the bot's own; none by default
  int max_tables = 1;  // ROOKERY_MAX_TABLES, else 1
  int games = 0;  // exit after this many finished games; 0: until stopped
  std::chrono::milliseconds connect_timeout{10000};
  std::chrono::milliseconds reconnect_timeout{60000};
  bool verbose = false;
  // Offer batching (Hello.batching): several messages per gRPC message both ways when the server
  // agrees. On by default; --no-batching turns it off.
  bool batching = true;
  bool help = false;
};

extern const char* const kUsage;

// Why a run stopped with an error; exit_code() maps each kind to the process exit code.
class ClientError : public std::runtime_error {
 public:
  enum class Kind { kUsage = 2, kTokenRejected = 3, kUnreachable = 4, kRefused = 5 };
  ClientError(Kind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  Kind kind() const { return kind_; }
  int exit_code() const { return static_cast<int>(kind_); }

 private:
  Kind kind_;
};

// Reads the flags in argv (after the program name) over the environment (ROOKERY_SERVER,
// ROOKERY_TOKEN, ROOKERY_BOT_NAME). Throws ClientError(kUsage) on bad arguments.
Config ParseConfig(int argc, char** argv, const std::string& default_name);

// What a run did.
struct Stats {
  int games = 0;       // tables whose game finished
  int actions = 0;     // replies sent
  int fallbacks = 0;   // replies the runner made because the bot's code failed (marked fallback)
  int rejections = 0;  // ActionRejected messages received
  int reconnects = 0;  // streams re-opened after a drop
  int resumes = 0;     // reconnections the server accepted as resumes
  int batches_received = 0;  // ConnectResponse.batch messages received
  int batches_sent = 0;      // ConnectRequest.batch messages sent
  std::string ToString() const;
};

// Plays until config.games games are finished (forever when 0). Throws ClientError when the token
// or the session is refused, or when the server stays unreachable.
Stats Run(const Config& config, const BotFactory& factory);

// Runs a bot as its program's main and returns the exit code for main to return, as the kit
// contract says a bot ends: the usage text for --help, the summary line on exit 0, else one line
// naming the cause (2 bad arguments, 3 token rejected, 4 server unreachable, 5 session refused,
// 1 anything else), never an uncaught exception. `program` starts the lines it writes;
// `configure`, when given, may change the parsed Config first (e.g. set a version).
int RunMain(int argc, char** argv, const std::string& program, const std::string& default_name,
            const BotFactory& factory, const std::function<void(Config&)>& configure = {});

// The messages to send for `requests`: with `batching` (the Welcome agreed to it), each run of two
// or more consecutive replies packed into one ReplyBatch; otherwise `requests` unchanged.
std::vector<v1::ConnectRequest> Pack(std::vector<v1::ConnectRequest> requests, bool batching);

// What the runner did with some server messages, without a network (for tests).
struct Handled {
  std::vector<v1::ConnectRequest> sent;  // what it would write to the stream, in order
  Stats stats;
};

// Hands `messages` to a runner as if they came after a Welcome (with batching as given), each
// message's replies written before the next message is read; what it would send.
Handled HandleMessages(const Config& config, const BotFactory& factory,
                       const std::vector<v1::ConnectResponse>& messages, bool batching);

}  // namespace rookery
