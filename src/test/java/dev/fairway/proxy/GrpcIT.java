package dev.fairway.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.util.concurrent.ListenableFuture;
import dev.fairway.Fairway;
import dev.fairway.testing.GrpcBackend;
import dev.fairway.testing.TestConfig;
import dev.fairway.testing.TestFairway;
import dev.fairway.testing.VertxTestBase;
import io.grpc.Context;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import io.grpc.testing.protobuf.SimpleRequest;
import io.grpc.testing.protobuf.SimpleResponse;
import io.grpc.testing.protobuf.SimpleServiceGrpc;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * gRPC through Fairway with grpc-java on both ends: a client speaking h2c (prior knowledge) to
 * Fairway's cleartext port, and an {@code h2c://} grpc-java backend. Every kind of call passes
 * with its messages, status and trailers intact; a client's cancel reaches the backend and frees
 * the slot; more concurrent calls than the backend allows per connection open more connections.
 */
class GrpcIT extends VertxTestBase {
  private static final int MIB = 1024 * 1024;
  private GrpcBackend backend;
  private ManagedChannel channel;

  @AfterEach
  void close() throws Exception {
    if (channel != null) {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    if (backend != null) {
      backend.close();
    }
  }

  /** A grpc backend allowing {@code maxCallsPerConnection} (0: any) calls per connection, behind a Fairway; a channel to it. */
  private Fairway start(int maxCallsPerConnection) throws Exception {
    backend = GrpcBackend.start(maxCallsPerConnection);
    TestConfig cfg = TestConfig.service("grpc",
            new JsonObject().put("id", "g1").put("url", "h2c://127.0.0.1:" + backend.port()).put("capacity", 50))
        .healthCheck(3_600_000, 1000, 1, 3);
    Fairway fw = TestFairway.start(vertx, cfg.build());
    channel = NettyChannelBuilder.forAddress("127.0.0.1", fw.proxyPort()).usePlaintext()
        .maxInboundMessageSize(16 * MIB).build();
    return fw;
  }

  private SimpleServiceGrpc.SimpleServiceBlockingStub blocking() {
    return SimpleServiceGrpc.newBlockingStub(channel).withDeadlineAfter(20, TimeUnit.SECONDS);
  }

  private static SimpleRequest req(String text) {
    return SimpleRequest.newBuilder().setRequestMessage(text).build();
  }

  @Test
  void aUnaryCallPassesAndLeavesNoSlotTaken() throws Exception {
    Fairway fw = start(0);

    SimpleResponse r = blocking().unaryRpc(req("hello"));

    assertThat(r.getResponseMessage()).isEqualTo("echo hello");
    TestFairway.assertIdleSoon(fw);
  }

  @Test
  void aServerStreamOfTenThousandMessagesArrivesWholeAndInOrder() throws Exception {
    start(0);

    Iterator<SimpleResponse> it = blocking().serverStreamingRpc(req("10000"));
    int n = 0;
    String last = null;
    while (it.hasNext()) {
      last = it.next().getResponseMessage();
      n++;
    }

    assertThat(List.of(n, last)).containsExactly(10_000, "m9999");
  }

  @Test
  void aClientStreamAndABidirectionalStreamPassBothWays() throws Exception {
    start(0);
    SimpleServiceGrpc.SimpleServiceStub async = SimpleServiceGrpc.newStub(channel);

    Collector up = new Collector();
    StreamObserver<SimpleRequest> in = async.clientStreamingRpc(up);
    for (String s : List.of("a", "b", "c")) {
      in.onNext(req(s));
    }
    in.onCompleted();
    Collector both = new Collector();
    StreamObserver<SimpleRequest> bidi = async.bidiStreamingRpc(both);
    for (String s : List.of("x", "y", "z")) {
      bidi.onNext(req(s));
    }
    bidi.onCompleted();

    assertThat(up.done.get(10, TimeUnit.SECONDS)).containsExactly("abc");
    assertThat(both.done.get(10, TimeUnit.SECONDS)).containsExactly("re x", "re y", "re z");
  }

  @Test
  void anErrorStatusKeepsItsCodeDescriptionAndTrailingMetadata() throws Exception {
    start(0);

    assertThatThrownBy(() -> blocking().unaryRpc(req("fail"))).isInstanceOfSatisfying(StatusRuntimeException.class,
        e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
          assertThat(e.getStatus().getDescription()).isEqualTo("bad input");
          Metadata trailers = e.getTrailers();
          assertThat(trailers == null ? null : trailers.get(GrpcBackend.DETAIL)).isEqualTo("why");
        });
  }

  @Test
  void aClientCancelReachesTheBackendAndFreesTheSlot() throws Exception {
    Fairway fw = start(0);
    Context.CancellableContext call = Context.current().withCancellation();
    CompletableFuture<Throwable> ended = new CompletableFuture<>();

    call.run(() -> SimpleServiceGrpc.newStub(channel).unaryRpc(req("hang"), new StreamObserver<>() {
      @Override
      public void onNext(SimpleResponse value) {
      }

      @Override
      public void onError(Throwable t) {
        ended.complete(t);
      }

      @Override
      public void onCompleted() {
        ended.complete(null);
      }
    }));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (backend.calls.get() == 0 && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertThat(fw.slotTable().view().endpoints().get("g1").active()).isEqualTo(1);
    call.cancel(null);

    assertThat(backend.cancels.await(10, TimeUnit.SECONDS)).as("the backend saw the cancel").isTrue();
    assertThat(Status.fromThrowable(ended.get(10, TimeUnit.SECONDS)).getCode()).isEqualTo(Status.Code.CANCELLED);
    TestFairway.assertIdleSoon(fw);
  }

  @Test
  void eightMebibyteMessagesPassBothWaysUnderFlowControl() throws Exception {
    start(0);

    SimpleResponse up = blocking().unaryRpc(req("y".repeat(8 * MIB)));
    SimpleResponse down = blocking().unaryRpc(req("big " + 8 * MIB));

    assertThat(up.getResponseMessage()).isEqualTo("echo " + 8 * MIB + " chars");
    assertThat(down.getResponseMessage()).hasSize(8 * MIB);
  }

  @Test
  void moreConcurrentCallsThanOneConnectionAllowsAllSucceedOverMoreConnections() throws Exception {
    Fairway fw = start(2);
    SimpleServiceGrpc.SimpleServiceFutureStub stub = SimpleServiceGrpc.newFutureStub(channel)
        .withDeadlineAfter(20, TimeUnit.SECONDS);

    List<ListenableFuture<SimpleResponse>> calls = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      calls.add(stub.unaryRpc(req("slow 500")));
    }
    List<String> answers = new ArrayList<>();
    for (ListenableFuture<SimpleResponse> c : calls) {
      answers.add(c.get(20, TimeUnit.SECONDS).getResponseMessage());
    }

    assertThat(answers).hasSize(10).containsOnly("slept");
    assertThat(backend.connections()).as("connections to the backend").isGreaterThan(1);
    TestFairway.assertIdleSoon(fw);
  }

  /** The messages of a call's responses, complete at its end. */
  private static final class Collector implements StreamObserver<SimpleResponse> {
    final List<String> got = new ArrayList<>();
    final CompletableFuture<List<String>> done = new CompletableFuture<>();

    @Override
    public synchronized void onNext(SimpleResponse value) {
      got.add(value.getResponseMessage());
    }

    @Override
    public void onError(Throwable t) {
      done.completeExceptionally(t);
    }

    @Override
    public synchronized void onCompleted() {
      done.complete(List.copyOf(got));
    }
  }
}
