package dev.fairway.tracing;

import static dev.fairway.testing.TestConfig.backend;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.fairway.Fairway;
import dev.fairway.testing.FreePorts;
import dev.fairway.testing.RawHttp;
import dev.fairway.testing.TestBackend;
import dev.fairway.testing.TestConfig;
import dev.fairway.testing.VertxTestBase;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.proto.trace.v1.Status;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonObject;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Tracing end to end: a real OTLP/HTTP receiver decodes what the SDK exports, a real backend
 * reports the {@code traceparent} and {@code tracestate} it got, and a real Fairway sits between.
 */
class TracingIT extends VertxTestBase {
  private static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
  private static final String PARENT = "00f067aa0ba902b7";
  private static final String STATE = "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7";

  /** What the receiver decoded: one entry per span, with its resource's {@code service.name}. */
  private final BlockingQueue<Received> spans = new LinkedBlockingQueue<>();
  private final AtomicInteger posts = new AtomicInteger();
  private final ListAppender<ILoggingEvent> exportLog = new ListAppender<>();
  private final Logger watched = (Logger) LoggerFactory.getLogger(WatchedExporter.class);
  private HttpServer receiver;
  private TestBackend echo;

  private record Received(String serviceName, Span span) {
  }

  @BeforeEach
  void setUp() throws Exception {
    exportLog.start();
    watched.addAppender(exportLog);
    receiver = vertx.createHttpServer().requestHandler(req -> req.body().onSuccess(body -> {
      posts.incrementAndGet();
      if (!req.path().equals("/v1/traces") || !"application/x-protobuf".equals(req.getHeader("content-type"))) {
        req.response().setStatusCode(415).end();
        return;
      }
      try {
        for (ResourceSpans rs : ExportTraceServiceRequest.parseFrom(body.getBytes()).getResourceSpansList()) {
          String name = attributes(rs.getResource().getAttributesList()).get("service.name").toString();
          for (ScopeSpans ss : rs.getScopeSpansList()) {
            ss.getSpansList().forEach(s -> spans.add(new Received(name, s)));
          }
        }
        req.response().putHeader("content-type", "application/x-protobuf").end();
      } catch (Exception e) {
        req.response().setStatusCode(400).end();
      }
    })).listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);
    echo = TestBackend.start(vertx, req -> req.response().end(req.getHeader("traceparent") + "|"
        + req.getHeader("tracestate")));
  }

  @AfterEach
  void tearDown() {
    watched.detachAppender(exportLog);
  }

  @Test
  void aSampledTraceIsContinuedForwardedAndExported() throws Exception {
    Fairway fw = fairway(tracing(receiverUrl()), echo.port());
    RawHttp.Response r = get(fw, "/api/a?x=1", "traceparent: 00-" + TRACE + "-" + PARENT + "-01\r\ntracestate: " + STATE
        + "\r\nx-request-id: req-42\r\n");

    assertThat(r.status()).isEqualTo(200);
    String[] seen = r.body().split("\\|");
    assertThat(seen[0]).matches("00-" + TRACE + "-[0-9a-f]{16}-01");
    assertThat(seen[1]).isEqualTo(STATE); // forwarded as it came
    Received got = spans.poll(10, TimeUnit.SECONDS);
    assertThat(got).isNotNull();
    Span s = got.span();
    assertThat(got.serviceName()).isEqualTo("edge-test");
    assertThat(hex(s.getTraceId().toByteArray())).isEqualTo(TRACE);
    assertThat(hex(s.getParentSpanId().toByteArray())).isEqualTo(PARENT);
    assertThat(s.getTraceState()).isEqualTo(STATE); // the span carries the client's tracestate too
    assertThat(seen[0]).isEqualTo("00-" + TRACE + "-" + hex(s.getSpanId().toByteArray()) + "-01");
    assertThat(s.getName()).isEqualTo("fairway web");
    assertThat(s.getKind()).isEqualTo(Span.SpanKind.SPAN_KIND_SERVER);
    Map<String, Object> a = attributes(s.getAttributesList());
    assertThat(a).containsEntry("fairway.service", "web").containsEntry("fairway.backend", "b1")
        .containsEntry("fairway.attempts", 1L).containsEntry("http.response.status_code", 200L)
        .containsEntry("http.request.method", "GET").containsEntry("url.path", "/api/a")
        .containsEntry("url.query", "x=1").containsEntry("fairway.request_id", "req-42")
        .containsKey("fairway.slot_wait_ms").doesNotContainKey("fairway.error");
    assertThat(s.getStatus().getCode()).isEqualTo(Status.StatusCode.STATUS_CODE_UNSET);

    String malformed = get(fw, "/api/a", "traceparent: 00-" + TRACE + "-" + PARENT + "-01\r\ntracestate: Congo=t61\r\n").body();
    assertThat(malformed).matches("00-" + TRACE + "-[0-9a-f]{16}-01\\|null"); // a malformed tracestate is dropped
  }

  @Test
  void anAbsentOrInvalidTraceparentStartsANewTraceAndDropsTracestate() throws Exception {
    Fairway fw = fairway(tracing(receiverUrl()), echo.port());
    String upper = "00-" + TRACE.toUpperCase() + "-" + PARENT + "-01";
    for (String field : List.of("", "traceparent: " + upper + "\r\n")) {
      RawHttp.Response r = get(fw, "/api/b", field + "tracestate: " + STATE + "\r\n");
      String[] seen = r.body().split("\\|");
      assertThat(seen[0]).matches("00-[0-9a-f]{32}-[0-9a-f]{16}-03").doesNotContain(TRACE); // sampled, random trace id
      assertThat(seen[1]).isEqualTo("null");
      Span s = spans.poll(10, TimeUnit.SECONDS).span();
      assertThat(s.getParentSpanId().isEmpty()).isTrue();
      assertThat(seen[0]).isEqualTo("00-" + hex(s.getTraceId().toByteArray()) + "-" + hex(s.getSpanId().toByteArray())
          + "-03");
    }
  }

  @Test
  void samplingFollowsTheClientsFlagAndTheRatioForNewTraces() throws Exception {
    Fairway fw = fairway(tracing(receiverUrl()).put("sampleRatio", 0), echo.port());
    String fresh = get(fw, "/api/c", "").body().split("\\|")[0];
    // not sampled (bit 0 clear; bit 1: the SDK's trace ids are random, W3C level 2): no span, but a new parent id
    assertThat(fresh).matches("00-[0-9a-f]{32}-[0-9a-f]{16}-02");
    String unsampled = get(fw, "/api/c", "traceparent: 00-" + TRACE + "-" + PARENT + "-00\r\n").body().split("\\|")[0];
    assertThat(unsampled).matches("00-" + TRACE + "-[0-9a-f]{16}-00").doesNotContain(PARENT);
    String sampled = get(fw, "/api/c", "traceparent: 00-" + TRACE + "-" + PARENT + "-01\r\n").body().split("\\|")[0];
    Received got = spans.poll(10, TimeUnit.SECONDS);
    assertThat(sampled).isEqualTo("00-" + TRACE + "-" + hex(got.span().getSpanId().toByteArray()) + "-01");
    assertThat(spans.poll(500, TimeUnit.MILLISECONDS)).isNull(); // only the sampled one
  }

  @Test
  void fairwaysOwnFailureAnswerIsASpanWithItsReason() throws Exception {
    Fairway fw = fairway(tracing(receiverUrl()), FreePorts.one()); // nothing listens there
    RawHttp.Response r = get(fw, "/api/d", "traceparent: 00-" + TRACE + "-" + PARENT + "-01\r\n");

    assertThat(r.status()).isEqualTo(503);
    Span s = spans.poll(10, TimeUnit.SECONDS).span();
    Map<String, Object> a = attributes(s.getAttributesList());
    assertThat(a).containsEntry("http.response.status_code", 503L).containsKey("fairway.error");
    assertThat(a.get("fairway.error").toString()).isNotBlank();
    assertThat(r.body().trim()).isNotBlank();
    assertThat(a.get("fairway.error").toString()).startsWith(r.body().trim());
    assertThat(s.getStatus().getCode()).isEqualTo(Status.StatusCode.STATUS_CODE_ERROR);
    assertThat(s.getStatus().getMessage()).isEqualTo(a.get("fairway.error"));
  }

  @Test
  void aRequestNoServiceMatchesIsASpanWithoutService() throws Exception {
    Fairway fw = fairway(tracing(receiverUrl()), echo.port());
    RawHttp.Response r = get(fw, "/nowhere", "traceparent: 00-" + TRACE + "-" + PARENT + "-01\r\n");

    assertThat(r.status()).isEqualTo(404);
    Span s = spans.poll(10, TimeUnit.SECONDS).span();
    assertThat(hex(s.getTraceId().toByteArray())).isEqualTo(TRACE);
    assertThat(s.getName()).isEqualTo("fairway");
    assertThat(attributes(s.getAttributesList())).containsEntry("http.response.status_code", 404L)
        .containsEntry("fairway.error", r.body().trim()).containsEntry("fairway.attempts", 0L)
        .doesNotContainKey("fairway.service").doesNotContainKey("fairway.backend");
  }

  @Test
  void tracingOffForwardsTheFieldsByteForByteAndExportsNothing() throws Exception {
    Fairway fw = fairway(null, echo.port());
    String odd = "00-" + TRACE.toUpperCase() + "-" + PARENT + "-01"; // invalid, yet untouched
    for (String parent : List.of("00-" + TRACE + "-" + PARENT + "-01", odd)) {
      RawHttp.Response r = get(fw, "/api/e", "traceparent: " + parent + "\r\ntracestate: Not=Valid=At,All\r\n");
      assertThat(r.body()).isEqualTo(parent + "|Not=Valid=At,All");
    }
    assertThat(get(fw, "/api/e", "").body()).isEqualTo("null|null");
    Thread.sleep(300);
    assertThat(posts.get()).isZero();
  }

  @Test
  void aCollectorThatNeverAnswersNeitherSlowsNorFailsRequestsAndIsLoggedOnce() throws Exception {
    HttpServer blackHole = vertx.createHttpServer().requestHandler(req -> { }).listen(0, "127.0.0.1")
        .await(10, TimeUnit.SECONDS);
    JsonObject t = tracing("http://127.0.0.1:" + blackHole.actualPort() + "/v1/traces").put("exportTimeoutMs", 200)
        .put("maxQueueSize", 16).put("maxBatchSize", 8);
    Fairway fw = fairway(t, echo.port());
    long start = System.nanoTime();
    for (int i = 0; i < 200; i++) {
      assertThat(get(fw, "/api/f", "").status()).isEqualTo(200);
    }
    long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    assertThat(ms).as("200 requests while exports hang for 200 ms each").isLessThan(4000);
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
    while (System.nanoTime() < until) { // exports keep failing meanwhile
      assertThat(get(fw, "/api/f", "").status()).isEqualTo(200);
      Thread.sleep(20);
    }
    List<String> warnings = exportLog.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
    assertThat(warnings).singleElement().asString().startsWith("tracing: exporting spans to http://127.0.0.1:"
        + blackHole.actualPort() + "/v1/traces failed");
  }

  private Fairway fairway(JsonObject tracing, int backendPort) throws Exception {
    TestConfig cfg = TestConfig.service("web", backend("b1", backendPort, 5));
    cfg.lastService().getJsonObject("match").put("pathPrefix", "/api");
    if (tracing != null) {
      cfg.json().put("tracing", tracing);
    }
    return Fairway.start(vertx, cfg.build()).await(10, TimeUnit.SECONDS);
  }

  /**
   * Exports time out after 2 s, not the default 10 s: closing Vert.x flushes the SDK to the
   * receiver, which closes with it, and a flush waiting the full default outlasted the 10 s the
   * test base gives Vert.x to close.
   */
  private JsonObject tracing(String endpoint) {
    return new JsonObject().put("endpoint", endpoint).put("serviceName", "edge-test").put("scheduleDelayMs", 20)
        .put("exportTimeoutMs", 2000);
  }

  private String receiverUrl() {
    return "http://127.0.0.1:" + receiver.actualPort() + "/v1/traces";
  }

  private static RawHttp.Response get(Fairway fw, String target, String fields) throws Exception {
    return RawHttp.exchange(fw.proxyPort(), "GET " + target + " HTTP/1.1\r\nHost: x\r\n" + fields + "\r\n");
  }

  private static String hex(byte[] b) {
    return HexFormat.of().formatHex(b);
  }

  private static Map<String, Object> attributes(List<KeyValue> kvs) {
    Map<String, Object> out = new HashMap<>();
    for (KeyValue kv : kvs) {
      AnyValue v = kv.getValue();
      out.put(kv.getKey(), v.hasStringValue() ? v.getStringValue() : v.hasIntValue() ? v.getIntValue()
          : v.hasDoubleValue() ? v.getDoubleValue() : v.hasBoolValue() ? v.getBoolValue() : v.toString());
    }
    return out;
  }
}
