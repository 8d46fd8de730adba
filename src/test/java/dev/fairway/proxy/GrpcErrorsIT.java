package dev.fairway.proxy;

import static dev.fairway.testing.TestConfig.backend;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.fairway.Fairway;
import dev.fairway.grpc.GrpcTimeout;
import dev.fairway.testing.Await;
import dev.fairway.testing.FreePorts;
import dev.fairway.testing.GrpcBackend;
import dev.fairway.testing.TestBackend;
import dev.fairway.testing.TestClient;
import dev.fairway.testing.TestConfig;
import dev.fairway.testing.VertxTestBase;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.testing.protobuf.SimpleRequest;
import io.grpc.testing.protobuf.SimpleServiceGrpc;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Fairway's own failures as a gRPC client sees them, and {@code grpc-timeout} as a deadline, with
 * a real grpc-java client (h2c prior knowledge to Fairway's cleartext port) and real HTTP/1.1
 * backends that answer trailers-only ({@code 200} with {@code grpc-status}, no body). Where
 * grpc-java's own deadline timer would race Fairway's answer, a plain HTTP/2 client sends
 * {@code grpc-timeout} itself and sees Fairway's answer unraced.
 */
class GrpcErrorsIT extends VertxTestBase {
  private static final String METHOD = "/grpc.testing.SimpleService/UnaryRpc";
  private static final Metadata.Key<String> PUSHBACK = Metadata.Key.of("grpc-retry-pushback-ms", Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<String> RETRY_AFTER = Metadata.Key.of("retry-after", Metadata.ASCII_STRING_MARSHALLER);
  private final List<ManagedChannel> channels = new ArrayList<>();

  private final ListAppender<ILoggingEvent> accessLines = new ListAppender<>();

  /** A copy of the lines logged so far: the appender adds to its list under its own lock, from the event loops. */
  private List<ILoggingEvent> accessLines() {
    synchronized (accessLines) {
      return new ArrayList<>(accessLines.list);
    }
  }
  private final Logger access = (Logger) LoggerFactory.getLogger("fairway.access");

  @BeforeEach
  void captureAccessLog() {
    accessLines.start();
    access.addAppender(accessLines);
  }

  @AfterEach
  void closeChannels() throws InterruptedException {
    access.detachAppender(accessLines);
    for (ManagedChannel c : channels) {
      c.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  private SimpleServiceGrpc.SimpleServiceBlockingStub stub(Fairway fw) {
    ManagedChannel c = ManagedChannelBuilder.forAddress("127.0.0.1", fw.proxyPort()).usePlaintext().build();
    channels.add(c);
    return SimpleServiceGrpc.newBlockingStub(c);
  }

  private static StatusRuntimeException call(SimpleServiceGrpc.SimpleServiceBlockingStub stub) {
    return catchThrowableOfType(StatusRuntimeException.class,
        () -> stub.unaryRpc(SimpleRequest.newBuilder().setRequestMessage("hi").build()));
  }

  /** A trailers-only gRPC answer with {@code code}, and the request's {@code grpc-timeout} as its message, once the body is read. */
  private static void answer(HttpServerRequest req, int code) {
    String seen = req.getHeader("grpc-timeout");
    req.body().onComplete(b -> req.response().putHeader("content-type", "application/grpc")
        .putHeader("grpc-status", Integer.toString(code)).putHeader("grpc-message", seen == null ? "none" : seen).end());
  }

  /** A backend that answers {@code 200 held} to anything after {@code delayMs}. */
  private TestBackend slow(long delayMs) {
    return TestBackend.start(vertx, req -> vertx.setTimer(delayMs, t -> req.response().end("held")));
  }

  /** Sends a plain HTTP/1.1 GET that takes the only slot of {@code backend} for as long as it answers slowly. */
  private void holdTheSlot(Fairway fw, TestBackend backend) throws Exception {
    int before = backend.inFlight();
    TestClient.onLoop(vertx, () -> client.request(HttpMethod.GET, fw.proxyPort(), "127.0.0.1", "/hold")
        .compose(r -> r.send()).compose(HttpClientResponse::body));
    Await.until(() -> backend.inFlight() > before);
  }

  private record H2Reply(int status, MultiMap headers, int bodyBytes, long millis) {
    String grpcStatus() {
      return headers.get("grpc-status");
    }
  }

  /** A gRPC-shaped POST over HTTP/2 (prior knowledge) with {@code grpc-timeout: timeout}, without a client-side deadline. */
  private H2Reply h2Call(Fairway fw, HttpMethod method, String timeout) throws Exception {
    HttpClientAgent h2 = vertx.createHttpClient(new HttpClientOptions().setProtocolVersion(HttpVersion.HTTP_2)
        .setHttp2ClearTextUpgrade(false));
    long start = System.nanoTime();
    RequestOptions o = new RequestOptions().setMethod(method).setHost("127.0.0.1").setPort(fw.proxyPort()).setURI(METHOD)
        .putHeader("content-type", "application/grpc").putHeader("te", "trailers").putHeader("grpc-timeout", timeout);
    return TestClient.onLoop(vertx, () -> h2.request(o)
        .compose(r -> method == HttpMethod.GET ? r.send() : r.send(Buffer.buffer(new byte[] {0, 0, 0, 0, 0})))
        .compose(resp -> resp.body().map(b -> new H2Reply(resp.statusCode(), resp.headers(), b.length(),
            (System.nanoTime() - start) / 1_000_000)))).await(10, TimeUnit.SECONDS);
  }

  @Test
  void noBackendAliveIsUnavailableNotAnHttpError() throws Exception {
    int dead = FreePorts.one();
    Fairway fw = Fairway.start(vertx, TestConfig.service("s", backend("b1", dead, 2)).build()).await(10, TimeUnit.SECONDS);

    StatusRuntimeException e = call(stub(fw));

    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(e.getStatus().getDescription()).isIn("could not connect to a backend", "no healthy backend available");
  }

  @Test
  void noRouteIsUnimplementedAndAnHttp11GrpcCallGetsTheSameAnswerAsHeaders() throws Exception {
    TestBackend b = TestBackend.start(vertx, req -> answer(req, 0));
    TestConfig config = TestConfig.service("s", backend("b1", b.port(), 2));
    config.lastService().getJsonObject("match").put("pathPrefix", "/elsewhere");
    Fairway fw = Fairway.start(vertx, config.build()).await(10, TimeUnit.SECONDS);

    StatusRuntimeException e = call(stub(fw));
    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
    assertThat(e.getStatus().getDescription()).isEqualTo("no service matches this host and path");

    RequestOptions o = new RequestOptions().setMethod(HttpMethod.POST).setHost("127.0.0.1").setPort(fw.proxyPort())
        .setURI(METHOD).putHeader("content-type", "application/grpc");
    H2Reply h1 = TestClient.onLoop(vertx, () -> client.request(o).compose(r -> r.send(Buffer.buffer(new byte[5])))
        .compose(resp -> resp.body().map(body -> new H2Reply(resp.statusCode(), resp.headers(), body.length(), 0))))
        .await(10, TimeUnit.SECONDS);
    assertThat(h1.status()).isEqualTo(200);
    assertThat(h1.grpcStatus()).isEqualTo("12");
    assertThat(h1.headers().get("content-length")).isEqualTo("0");
    assertThat(h1.bodyBytes()).isZero();
    assertThat(b.requests()).isZero();
  }

  @Test
  void allSlotsFullIsUnavailableWithPushback() throws Exception {
    TestBackend held = slow(3000);
    TestConfig config = TestConfig.service("s", backend("b1", held.port(), 1)).slots(1, 200);
    config.json().put("accessLog", new JsonObject().put("enabled", true).put("format", "json"));
    Fairway fw = Fairway.start(vertx, config.build()).await(10, TimeUnit.SECONDS);
    holdTheSlot(fw, held);

    long start = System.nanoTime();
    StatusRuntimeException e = call(stub(fw));
    long millis = (System.nanoTime() - start) / 1_000_000;

    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(e.getStatus().getDescription()).isEqualTo("no free slot within the wait timeout");
    assertThat(e.getTrailers().get(PUSHBACK)).isEqualTo("1000");
    assertThat(e.getTrailers().get(RETRY_AFTER)).isEqualTo("1");
    assertThat(millis).as("waited for the slot (the first call also sets up the channel)").isGreaterThanOrEqualTo(180L);
    assertThat(held.requests()).as("only the request holding the slot").isEqualTo(1);
    Await.until(() -> accessLines().stream().anyMatch(l -> l.getFormattedMessage().contains(METHOD)));
    JsonObject line = accessLines().stream().map(l -> new JsonObject(l.getFormattedMessage()))
        .filter(j -> j.getString("path").equals(METHOD)).findFirst().orElseThrow();
    assertThat(line.getInteger("status")).as("the HTTP equivalent, for dashboards").isEqualTo(503);
    assertThat(line.getString("reason")).isEqualTo("no free slot within the wait timeout (grpc-status 14)");
  }

  @Test
  void aDeadlineShorterThanTheSlotWaitEndsTheWaitAtTheDeadline() throws Exception {
    TestBackend held = slow(4000);
    Fairway fw = Fairway.start(vertx, TestConfig.service("s", backend("b1", held.port(), 1)).slots(1, 3000).build())
        .await(10, TimeUnit.SECONDS);
    holdTheSlot(fw, held);

    H2Reply r = h2Call(fw, HttpMethod.POST, "300m");

    assertThat(r.status()).isEqualTo(200);
    assertThat(r.grpcStatus()).isEqualTo("4");
    assertThat(r.headers().get("grpc-message")).isEqualTo("deadline exceeded before a backend answered");
    assertThat(r.headers().get("content-type")).isEqualTo("application/grpc");
    assertThat(r.bodyBytes()).isZero();
    assertThat(r.millis()).isBetween(280L, 1500L);
    assertThat(fw.slotTable().view().services().get("s").waiting()).isZero();

    long start = System.nanoTime();
    StatusRuntimeException e = call(stub(fw).withDeadlineAfter(300, TimeUnit.MILLISECONDS));
    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
    assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(3000L);
    assertThat(held.requests()).as("neither call reached the backend").isEqualTo(1);
  }

  @Test
  void aBackendSlowerThanTheDeadlineIsDeadlineExceededAndNotItsFailure() throws Exception {
    TestBackend slow = slow(3000);
    Fairway fw = Fairway.start(vertx, TestConfig.service("s", backend("b1", slow.port(), 4)).build())
        .await(10, TimeUnit.SECONDS);

    H2Reply r = h2Call(fw, HttpMethod.POST, "300m");

    assertThat(r.status()).isEqualTo(200);
    assertThat(r.grpcStatus()).isEqualTo("4");
    assertThat(r.headers().get("grpc-message")).isEqualTo("deadline exceeded before a backend answered");
    assertThat(r.millis()).isBetween(280L, 1500L);
    Await.until(() -> slow.inFlight() == 0); // the backend's request is cut: its connection closes

    StatusRuntimeException e = call(stub(fw).withDeadlineAfter(300, TimeUnit.MILLISECONDS));
    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
    int sent = slow.requests();
    H2Reply late = h2Call(fw, HttpMethod.POST, "0n");
    assertThat(late.grpcStatus()).as("granted a free slot, but already past its deadline").isEqualTo("4");
    assertThat(slow.requests()).as("never forwarded").isEqualTo(sent);
    Thread.sleep(600); // two observation periods
    assertThat(backendJson(fw, "b1").getDouble("eps")).as("the client's deadline is not the backend's error").isZero();
  }

  @Test
  void theBackendSeesTheTimeoutLessTheTimeSpentInFairway() throws Exception {
    TestBackend echo = TestBackend.start(vertx, req -> {
      if (req.path().equals("/hold")) {
        vertx.setTimer(800, t -> req.response().end("held"));
      } else {
        answer(req, 5);
      }
    });
    Fairway fw = Fairway.start(vertx, TestConfig.service("s", backend("b1", echo.port(), 1)).slots(1, 3000).build())
        .await(10, TimeUnit.SECONDS);
    SimpleServiceGrpc.SimpleServiceBlockingStub stub = stub(fw);
    assertThat(call(stub).getStatus().getDescription()).as("no deadline, none forwarded").isEqualTo("none");

    holdTheSlot(fw, echo);
    StatusRuntimeException e = call(stub.withDeadlineAfter(5, TimeUnit.SECONDS));
    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
    assertThat(GrpcTimeout.parse(e.getStatus().getDescription())).as("the client's 5 s less the wait for the slot")
        .isBetween(TimeUnit.SECONDS.toNanos(3), TimeUnit.MILLISECONDS.toNanos(4500));

    holdTheSlot(fw, echo);
    H2Reply r = h2Call(fw, HttpMethod.GET, "5S"); // exactly 5 s sent; a bodiless request takes the byte path
    assertThat(r.grpcStatus()).isEqualTo("5");
    assertThat(GrpcTimeout.parse(r.headers().get("grpc-message"))).as("5 s less the wait for the slot")
        .isBetween(TimeUnit.SECONDS.toNanos(3), TimeUnit.MILLISECONDS.toNanos(4500));
    assertThat(r.headers().get("grpc-message")).matches("[0-9]{1,8}u");

    H2Reply bad = h2Call(fw, HttpMethod.POST, "5s");
    assertThat(bad.status()).isEqualTo(200);
    assertThat(bad.grpcStatus()).as("a malformed grpc-timeout").isEqualTo("13");
    assertThat(bad.headers().get("grpc-message")).isEqualTo("malformed grpc-timeout");
  }

  @Test
  void grpcStatusInTheServicesErrorCodesCountsAsTheBackendsFailure() throws Exception {
    AtomicInteger b1Answers = new AtomicInteger(5);
    TestBackend b1 = TestBackend.start(vertx, req -> answer(req, b1Answers.get()));
    TestBackend b2 = TestBackend.start(vertx, req -> answer(req, 5));
    TestConfig config = TestConfig.service("s", backend("b1", b1.port(), 10), backend("b2", b2.port(), 10))
        .healthCheck(10_000, 500, 1, 3);
    config.lastService().put("outlierDetection", new JsonObject().put("consecutive5xx", 3))
        .put("grpc", new JsonObject().put("errorCodes", new JsonArray().add(14)));
    Fairway fw = Fairway.start(vertx, config.build()).await(10, TimeUnit.SECONDS);
    SimpleServiceGrpc.SimpleServiceBlockingStub stub = stub(fw);

    for (int i = 0; i < 12; i++) {
      assertThat(call(stub).getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
    }
    Thread.sleep(600); // two observation periods
    assertThat(b1.requests()).isGreaterThanOrEqualTo(5);
    assertThat(backendJson(fw, "b1").getString("state")).as("NOT_FOUND is not in [14]").isEqualTo("healthy");
    assertThat(backendJson(fw, "b1").getDouble("eps")).isZero();

    b1Answers.set(14);
    for (int i = 0; i < 40 && !backendJson(fw, "b1").getString("state").equals("ejected"); i++) {
      call(stub);
      Thread.sleep(20);
    }
    assertThat(backendJson(fw, "b1").getString("state")).as("UNAVAILABLE answers in a row").isEqualTo("ejected");
    assertThat(backendJson(fw, "b1").getString("reason")).contains("consecutive 5xx");
    assertThat(backendJson(fw, "b2").getString("state")).isEqualTo("healthy");
  }

  @Test
  void grpcStatusInTheTrailersOfAnHttp2BackendCountsLikeOneInItsHead() throws Exception {
    try (GrpcBackend g = GrpcBackend.start(0)) {
      TestConfig config = TestConfig.service("s",
              new JsonObject().put("id", "g1").put("url", "h2c://127.0.0.1:" + g.port()).put("capacity", 10))
          .healthCheck(3_600_000, 500, 1, 3);
      Fairway fw = Fairway.start(vertx, config.build()).await(10, TimeUnit.SECONDS);
      SimpleServiceGrpc.SimpleServiceBlockingStub stub = stub(fw);
      SimpleRequest ok = SimpleRequest.newBuilder().setRequestMessage("hello").build();
      SimpleRequest failing = SimpleRequest.newBuilder().setRequestMessage("after 14").build();

      for (int i = 0; i < 5; i++) {
        stub.unaryRpc(ok);
      }
      Thread.sleep(600); // two observation periods
      assertThat(backendJson(fw, "g1").getDouble("eps")).as("grpc-status 0 in the trailers").isZero();
      for (int i = 0; i < 5; i++) {
        assertThat(catchThrowableOfType(StatusRuntimeException.class, () -> stub.unaryRpc(failing).getResponseMessage())
            .getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
      }
      Await.until(() -> backendJson(fw, "g1").getDouble("eps") > 0);
      assertThat(backendJson(fw, "g1").getDouble("eps")).as("grpc-status 14 after a message").isPositive();
    }
  }

  private JsonObject backendJson(Fairway fw, String id) throws Exception {
    String body = TestClient.onLoop(vertx, () -> client.request(HttpMethod.GET, fw.adminPort(), "127.0.0.1", "/api/services")
        .compose(r -> r.send()).compose(HttpClientResponse::body)).await(5, TimeUnit.SECONDS).toString();
    for (Object s : new JsonArray(body)) {
      for (Object b : ((JsonObject) s).getJsonArray("backends")) {
        if (((JsonObject) b).getString("id").equals(id)) {
          return (JsonObject) b;
        }
      }
    }
    return new JsonObject().put("state", "absent");
  }
}
