#include "rookery/client.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "rookery/actions.h"

namespace rookery {
namespace {

// Passes, and writes down what it sees.
class Recorder : public Bot {
 public:
  Recorder(std::string table_id, std::vector<std::string>* seen) : table_id_(std::move(table_id)), seen_(seen) {}
  void OnEvent(const v1::Event& event) override {
    seen_->push_back(table_id_ + " event " + std::to_string(event.seq()));
  }
  v1::Action Act(const v1::ActionRequest& request) override {
    seen_->push_back(table_id_ + " act " + std::to_string(request.request_id()));
    return PassAction();
  }

 private:
  std::string table_id_;
  std::vector<std::string>* seen_;
};

v1::ConnectResponse Joined(const std::string& table_id) {
  v1::ConnectResponse message;
  message.mutable_table_joined()->set_table_id(table_id);
  message.mutable_table_joined()->set_seat(1);
  return message;
}

v1::ConnectResponse Event(const std::string& table_id, uint64_t seq) {
  v1::ConnectResponse message;
  message.mutable_event()->set_table_id(table_id);
  message.mutable_event()->mutable_event()->set_seq(seq);
  return message;
}

v1::ConnectResponse Request(const std::string& table_id, uint64_t request_id) {
  v1::ConnectResponse message;
  auto* request = message.mutable_action_request();
  request->set_table_id(table_id);
  request->set_request_id(request_id);
  request->set_seat(1);
  request->mutable_legal_actions()->set_phase(v1::PHASE_BIDDING);
  request->mutable_legal_actions()->set_can_pass(true);
  return message;
}

v1::ConnectRequest Reply(const std::string& table_id, uint64_t request_id) {
  v1::ConnectRequest message;
  message.mutable_action_reply()->set_table_id(table_id);
  message.mutable_action_reply()->set_request_id(request_id);
  *message.mutable_action_reply()->mutable_action() = PassAction();
  return message;
}

std::string Text(const v1::ConnectRequest& request) {
  if (request.has_action_reply()) {
    return "reply " + request.action_reply().table_id() + " " + std::to_string(request.action_reply().request_id());
  }
  if (request.has_batch()) {
    std::string text = "batch";
    for (const auto& reply : request.batch().replies()) {
      text += " " + reply.table_id() + " " + std::to_string(reply.request_id());
    }
    return text;
  }
  return request.has_ping() ? "ping" : "?";
}

std::vector<std::string> Texts(const std::vector<v1::ConnectRequest>& requests) {
  std::vector<std::string> texts;
  for (const auto& request : requests) texts.push_back(Text(request));
  return texts;
}

Handled HandleOneBatch(bool batching, std::vector<std::string>* seen) {
  v1::ConnectResponse batch;
  for (const auto& message : {Joined("t1"), Event("t1", 1), Request("t1", 7), Joined("t2"), Event("t2", 1),
                              Request("t2", 3)}) {
    *batch.mutable_batch()->add_messages() = message;
  }
  Config config;
  config.name = "kit";
  BotFactory factory = [seen](const v1::TableJoined& joined) -> std::unique_ptr<Bot> {
    return std::make_unique<Recorder>(joined.table_id(), seen);
  };
  return HandleMessages(config, factory, {batch}, batching);
}

TEST(Client, HandlesABatchInOrderAndSendsItsRepliesAsOneReplyBatch) {
  std::vector<std::string> seen;
  Handled handled = HandleOneBatch(true, &seen);

  EXPECT_EQ(seen, (std::vector<std::string>{"t1 event 1", "t1 act 7", "t2 event 1", "t2 act 3"}));
  EXPECT_EQ(Texts(handled.sent), std::vector<std::string>{"batch t1 7 t2 3"});
  EXPECT_EQ(handled.stats.batches_received, 1);
  EXPECT_EQ(handled.stats.batches_sent, 1);
  EXPECT_EQ(handled.stats.actions, 2);
}

TEST(Client, WithoutBatchingEachReplyGoesAlone) {
  std::vector<std::string> seen;
  Handled handled = HandleOneBatch(false, &seen);

  EXPECT_EQ(Texts(handled.sent), (std::vector<std::string>{"reply t1 7", "reply t2 3"}));
  EXPECT_EQ(handled.stats.batches_sent, 0);
}

TEST(Client, PackBatchesOnlyConsecutiveReplies) {
  v1::ConnectRequest ping;
  ping.mutable_ping()->set_nonce(5);

  auto packed = Pack({Reply("t1", 1), Reply("t2", 2), ping, Reply("t3", 3)}, true);

  EXPECT_EQ(Texts(packed), (std::vector<std::string>{"batch t1 1 t2 2", "ping", "reply t3 3"}));
}

TEST(Client, BatchingIsOnUnlessTurnedOff) {
  char program[] = "bot";
  char no_batching[] = "--no-batching";
  char* defaults[] = {program};
  char* off[] = {program, no_batching};
  EXPECT_TRUE(ParseConfig(1, defaults, "kit").batching);
  EXPECT_FALSE(ParseConfig(2, off, "kit").batching);
}

}  // namespace
}  // namespace rookery
