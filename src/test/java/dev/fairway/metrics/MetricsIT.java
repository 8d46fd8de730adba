package dev.fairway.metrics;

import static dev.fairway.testing.TestConfig.backend;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.Fairway;
import dev.fairway.testing.Await;
import dev.fairway.testing.TestBackend;
import dev.fairway.testing.TestClient;
import dev.fairway.testing.TestConfig;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.micrometer.MicrometerMetricsFactory;
import io.vertx.micrometer.MicrometerMetricsOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@code GET /metrics} parsed: the named meters exist with their labels and move under load. */
class MetricsIT {
  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private Vertx vertx;
  private HttpClientAgent client;

  @BeforeEach
  void setUp() {
    vertx = Vertx.builder()
        .with(new VertxOptions().setMetricsOptions(new MicrometerMetricsOptions().setEnabled(true)
            .setMeterCacheEnabled(true)))
        .withMetrics(new MicrometerMetricsFactory(registry))
        .build();
    client = vertx.createHttpClient();
  }

  @AfterEach
  void tearDown() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  private String get(int port, String uri) throws Exception {
    return TestClient.onLoop(vertx, () -> client.request(HttpMethod.GET, port, "127.0.0.1", uri)
        .compose(r -> r.send()).compose(HttpClientResponse::body)).await(5, TimeUnit.SECONDS).toString();
  }

  /** The value of the one sample whose name and labels match exactly, or -1. */
  static double sample(String scrape, String nameAndLabels) {
    Matcher m = Pattern.compile("^" + Pattern.quote(nameAndLabels) + " ([0-9.eE+-]+)$", Pattern.MULTILINE)
        .matcher(scrape);
    return m.find() ? Double.parseDouble(m.group(1)) : -1;
  }

  @Test
  void fairwayAndVertxMetersExistWithTheirLabelsAndMoveUnderLoad() throws Exception {
    TestBackend slow = TestBackend.start(vertx, req -> vertx.setTimer(300, t -> req.response()
        .putHeader("endpoint-load-metrics", "TEXT cpu_utilization=0.25").end("ok")));
    Fairway fw = Fairway.start(vertx, TestConfig.service("s", backend("b1", slow.port(), 2)).slots(2, 2000)
        .healthCheck(200, 500, 1, 2).build(), null, registry).await(10, TimeUnit.SECONDS);

    String idle = get(fw.adminPort(), "/metrics");
    assertThat(sample(idle, "fairway_backend_active{backend=\"b1\"}")).isZero();
    assertThat(sample(idle, "fairway_backend_capacity{backend=\"b1\"}")).isEqualTo(2);
    assertThat(sample(idle, "fairway_backend_state{backend=\"b1\",state=\"healthy\"}")).isEqualTo(1);
    assertThat(sample(idle, "fairway_backend_state{backend=\"b1\",state=\"lame-duck\"}")).isZero();
    assertThat(sample(idle, "fairway_service_waiting{service=\"s\"}")).isZero();

    List<Future<String>> load = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      load.add(TestClient.onLoop(vertx, () -> client.request(HttpMethod.GET, fw.proxyPort(), "127.0.0.1", "/")
          .compose(r -> r.send()).compose(HttpClientResponse::body).map(Object::toString)));
    }
    Thread.sleep(150);
    String busy = get(fw.adminPort(), "/metrics");
    assertThat(sample(busy, "fairway_backend_active{backend=\"b1\"}")).isEqualTo(2);
    assertThat(sample(busy, "fairway_service_waiting{service=\"s\"}")).isEqualTo(3);
    Future.all(load).await(10, TimeUnit.SECONDS);
    Thread.sleep(1300);

    String after = get(fw.adminPort(), "/metrics");
    assertThat(sample(after, "fairway_slot_wait_seconds_count{service=\"s\"}")).isEqualTo(3);
    assertThat(sample(after, "fairway_backend_utilization{backend=\"b1\"}")).isEqualTo(0.25);
    assertThat(sample(after, "fairway_backend_active{backend=\"b1\"}")).isZero();
    assertThat(sample(after, "fairway_backend_requests_total{backend=\"b1\",class=\"2xx\"}")).isEqualTo(5);
    assertThat(sample(after, "fairway_backend_latency_seconds_count{backend=\"b1\"}")).isEqualTo(5);
    assertThat(after).containsPattern("(?m)^vertx_http_server_requests_total\\{.*\\} [1-9]")
        .containsPattern("(?m)^vertx_http_client_requests_total\\{.*\\} [1-9]");
  }

  @Test
  void malformedBinaryLoadReportsAreCounted() throws Exception {
    TestBackend garbled = TestBackend.start(vertx, req -> req.response()
        .putHeader("endpoint-load-metrics-bin", "CQAAAAAAAOA").end("ok"), true);
    Fairway fw = Fairway.start(vertx, TestConfig.service("s", backend("b1", garbled.port(), 2))
        .healthCheck(100, 500, 1, 2).build(), null, registry).await(10, TimeUnit.SECONDS);
    Await.until(() -> sample(get(fw.adminPort(), "/metrics"),
        "fairway_backend_bad_load_reports_total{backend=\"b1\"}") >= 3);
    assertThat(sample(get(fw.adminPort(), "/metrics"), "fairway_backend_utilization{backend=\"b1\"}")).isZero();
  }
}
