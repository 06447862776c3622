package org.rookery.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import rookery.v1.Actions.Action;
import rookery.v1.Actions.LegalActions;
import rookery.v1.Actions.Phase;
import rookery.v1.BotServiceOuterClass.ActionReply;
import rookery.v1.BotServiceOuterClass.ActionRequest;
import rookery.v1.BotServiceOuterClass.ConnectRequest;
import rookery.v1.BotServiceOuterClass.ConnectResponse;
import rookery.v1.BotServiceOuterClass.Ping;
import rookery.v1.BotServiceOuterClass.ResponseBatch;
import rookery.v1.BotServiceOuterClass.TableEvent;
import rookery.v1.BotServiceOuterClass.TableJoined;
import rookery.v1.Events.Event;

class BotRunnerTest {
  static ConnectResponse joined(String tableId) {
    return ConnectResponse.newBuilder()
        .setTableJoined(TableJoined.newBuilder().setTableId(tableId).setSeat(1))
        .build();
  }

  static ConnectResponse event(String tableId, long seq) {
    return ConnectResponse.newBuilder()
        .setEvent(TableEvent.newBuilder().setTableId(tableId).setEvent(Event.newBuilder().setSeq(seq)))
        .build();
  }

  static ConnectResponse request(String tableId, long requestId) {
    LegalActions legal =
        LegalActions.newBuilder().setPhase(Phase.PHASE_BIDDING).setCanPass(true).build();
    return ConnectResponse.newBuilder()
        .setActionRequest(
            ActionRequest.newBuilder()
                .setTableId(tableId)
                .setRequestId(requestId)
                .setSeat(1)
                .setLegalActions(legal))
        .build();
  }

  static ConnectRequest reply(String tableId, long requestId) {
    return ConnectRequest.newBuilder()
        .setActionReply(
            ActionReply.newBuilder()
                .setTableId(tableId)
                .setRequestId(requestId)
                .setAction(ActionsUtil.pass()))
        .build();
  }

  static BotRunner runner(List<String> seen, String... args) throws ClientException {
    Config config = Config.parse(args, Map.of(), "kit");
    return new BotRunner(
        config,
        joined ->
            new Bot() {
              @Override
              public void onEvent(Event event) {
                seen.add(joined.getTableId() + " event " + event.getSeq());
              }

              @Override
              public Action act(ActionRequest request) {
                seen.add(request.getTableId() + " act " + request.getRequestId());
                return ActionsUtil.pass();
              }
            });
  }

  @Test
  void aBatchIsHandledInOrderAndItsRepliesCollected() throws ClientException {
    List<String> seen = new ArrayList<>();
    BotRunner runner = runner(seen);
    ResponseBatch batch =
        ResponseBatch.newBuilder()
            .addMessages(joined("t1"))
            .addMessages(event("t1", 1))
            .addMessages(request("t1", 7))
            .addMessages(joined("t2"))
            .addMessages(event("t2", 1))
            .addMessages(request("t2", 3))
            .build();
    List<ConnectRequest> out = new ArrayList<>();

    assertFalse(runner.handle(ConnectResponse.newBuilder().setBatch(batch).build(), out));

    assertEquals(List.of("t1 event 1", "t1 act 7", "t2 event 1", "t2 act 3"), seen);
    assertEquals(List.of(reply("t1", 7), reply("t2", 3)), out);
    assertEquals(1, runner.stats().batchesReceived);
    assertEquals(2, runner.stats().actions);
  }

  @Test
  void repliesReadyTogetherGoAsOneReplyBatchOnlyWithBatching() {
    ConnectRequest ping = ConnectRequest.newBuilder().setPing(Ping.newBuilder().setNonce(5)).build();
    List<ConnectRequest> requests = List.of(reply("t1", 1), reply("t2", 2), ping, reply("t3", 3));

    List<ConnectRequest> packed = BotRunner.pack(requests, true);

    assertEquals(3, packed.size());
    assertTrue(packed.get(0).hasBatch());
    assertEquals(
        List.of(reply("t1", 1).getActionReply(), reply("t2", 2).getActionReply()),
        packed.get(0).getBatch().getRepliesList());
    assertEquals(List.of(ping, reply("t3", 3)), packed.subList(1, 3));
    assertSame(requests, BotRunner.pack(requests, false));
  }

  @Test
  void helloOffersBatchingUnlessTurnedOff() throws ClientException {
    assertTrue(runner(new ArrayList<>()).hello().getHello().getBatching());
    assertFalse(runner(new ArrayList<>(), "--no-batching").hello().getHello().getBatching());
  }
}
