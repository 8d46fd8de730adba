package dev.fairway.admin;

import static dev.fairway.testing.TestConfig.backend;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.fairway.Fairway;
import dev.fairway.testing.RawHttp;
import dev.fairway.testing.TestClient;
import dev.fairway.testing.TestConfig;
import dev.fairway.testing.TestFairway;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.net.SocketAddress;
import io.vertx.junit5.VertxExtension;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;

/**
 * The admin listener answers only a {@code Host} that names it (an IP address, {@code localhost},
 * {@code admin.host} or a name in {@code admin.allowedHosts}), so a page whose DNS name is re-bound
 * to 127.0.0.1 cannot read the API, metrics or dashboard (DNS rebinding). Requests go to a real
 * Fairway byte for byte over a socket, and over h2c through a Vert.x client.
 */
@ExtendWith(VertxExtension.class)
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class AdminHostTest {
  private static final String TOKEN = "test-token-0123456789";
  private static final String REFUSAL = "Host names no address of this admin listener: use an IP address or "
      + "localhost, or add the name to admin.allowedHosts\n";
  private Fairway fairway;

  @BeforeEach
  void setUp(Vertx vertx) {
    TestConfig c = TestConfig.service("web", backend("b", 1, 1));
    c.json().getJsonObject("admin").put("allowedHosts", new JsonArray().add("admin.example"));
    fairway = TestFairway.start(vertx, c.build());
  }

  private RawHttp.Response get(String path, String hostLines) throws Exception {
    return RawHttp.exchange(fairway.adminPort(), "GET " + path + " HTTP/1.1\r\n" + hostLines + "\r\n");
  }

  private void assertRefused(RawHttp.Response r, String reason) {
    assertThat(r.status()).isEqualTo(403);
    assertThat(r.all("Content-Type")).containsExactly("text/plain; charset=utf-8");
    assertThat(r.body()).isEqualTo(reason);
  }

  @Test
  void foreignHostGetsNoServices() throws Exception {
    RawHttp.Response r = get("/api/services", "Host: evil.example:" + fairway.adminPort() + "\r\n");

    assertRefused(r, REFUSAL);
    assertThat(r.body()).doesNotContain("web", "[", "{");
  }

  @Test
  void foreignHostIsRefusedOnEveryRoute() throws Exception {
    for (String path : new String[] {"/", "/index.html", "/dashboard.js", "/metrics", "/health", "/no-such-file"}) {
      assertRefused(get(path, "Host: evil.example\r\n"), REFUSAL);
    }
    for (String host : new String[] {"127.0.0.1.evil.example", "localhost.evil.example", "localhost."}) {
      assertRefused(get("/api/services", "Host: " + host + "\r\n"), REFUSAL);
    }
  }

  @Test
  void foreignHostIsRefusedBeforeTheToken() throws Exception {
    RawHttp.Response r = RawHttp.exchange(fairway.adminPort(), "POST /api/backends/b/lame-duck HTTP/1.1\r\n"
        + "Host: evil.example\r\nAuthorization: Bearer " + TOKEN + "\r\nContent-Length: 0\r\n\r\n");

    assertRefused(r, REFUSAL);
    assertThat(servicesAs("127.0.0.1").getJsonObject(0).getJsonArray("backends").getJsonObject(0)
        .getString("state")).isNotEqualTo("lame-duck");
  }

  @Test
  void missingRepeatedOrMalformedHostIsRefused() throws Exception {
    assertRefused(RawHttp.exchange(fairway.adminPort(), "GET /api/services HTTP/1.0\r\n\r\n"), "missing Host header\n");
    assertRefused(get("/api/services", "Host: 127.0.0.1\r\nHost: evil.example\r\n"), "more than one Host header\n");
    // HTTP/1.1 without Host, or with a Host Vert.x cannot parse: 400 before any route, and no error logged.
    Logger logger = (Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME);
    ListAppender<ILoggingEvent> logs = new ListAppender<>();
    logs.start();
    logger.addAppender(logs);
    try {
      for (String hostLines : new String[] {"", "Host: a@127.0.0.1\r\n"}) {
        RawHttp.Response r = get("/api/services", hostLines);
        assertThat(r.status()).as(hostLines).isEqualTo(400);
        assertThat(r.body()).as(hostLines).isEqualTo("missing or malformed Host header\n");
      }
    } finally {
      logger.detachAppender(logs);
    }
    assertThat(logs.list).noneSatisfy(e -> assertThat(e.getLevel()).isEqualTo(Level.ERROR));
  }

  @Test
  void addressesAndLocalhostAreServed() throws Exception {
    int port = fairway.adminPort();
    for (String host : new String[] {"127.0.0.1:" + port, "127.0.0.1", "localhost:" + port, "LocalHost",
        "[::1]:" + port, "10.1.2.3:8443"}) {
      assertThat(servicesAs(host).getJsonObject(0).getString("name")).as(host).isEqualTo("web");
    }
  }

  @Test
  void allowedHostsNameIsServedInAnyCase() throws Exception {
    assertThat(servicesAs("admin.example:" + fairway.adminPort()).getJsonObject(0).getString("name")).isEqualTo("web");
    assertThat(servicesAs("ADMIN.Example").getJsonObject(0).getString("name")).isEqualTo("web");
    assertThat(get("/metrics", "Host: admin.example\r\n").status()).isEqualTo(200);
    assertThat(get("/", "Host: admin.example\r\n").status()).isEqualTo(200);
    assertRefused(get("/api/services", "Host: sub.admin.example\r\n"), REFUSAL);
  }

  @Test
  void http2AuthorityIsCheckedLikeHost(Vertx vertx) throws Exception {
    HttpClientAgent h2c = vertx.createHttpClient(new HttpClientOptions().setProtocolVersion(HttpVersion.HTTP_2)
        .setHttp2ClearTextUpgrade(false));

    assertThat(h2c(vertx, h2c, "localhost")).isEqualTo("HTTP_2 200");
    assertThat(h2c(vertx, h2c, "evil.example")).isEqualTo("HTTP_2 403 " + REFUSAL);
  }

  /** GET /api/services over h2c (prior knowledge) with {@code :authority} host:port: version, status, 403 body. */
  private String h2c(Vertx vertx, HttpClientAgent client, String host) throws Exception {
    RequestOptions o = new RequestOptions().setServer(SocketAddress.inetSocketAddress(fairway.adminPort(), "127.0.0.1"))
        .setHost(host).setPort(fairway.adminPort()).setURI("/api/services");
    return TestClient.onLoop(vertx, () -> client.request(o).compose(HttpClientRequest::send)
            .compose(resp -> resp.body().map(b -> resp.version() + " " + resp.statusCode()
                + (resp.statusCode() == 200 ? "" : " " + b))))
        .await(10, TimeUnit.SECONDS);
  }

  private JsonArray servicesAs(String host) throws Exception {
    RawHttp.Response r = get("/api/services", "Host: " + host + "\r\n");
    assertThat(r.status()).as("GET /api/services with Host: %s -> %s", host, r.body()).isEqualTo(200);
    return new JsonArray(r.body());
  }
}
