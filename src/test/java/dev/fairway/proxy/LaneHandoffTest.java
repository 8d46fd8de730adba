package dev.fairway.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairway.Fairway;
import dev.fairway.testing.TestClient;
import dev.fairway.testing.TestConfig;
import dev.fairway.testing.TestFairway;
import dev.fairway.testing.TlsClient;
import dev.fairway.testing.TlsFiles;
import dev.fairway.testing.VertxTestBase;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * HTTP/2 client connections move to the lanes that serve HTTP/2 ({@code proxy.h2Instances}):
 * with 4 lanes and 1 for HTTP/2, every h2c or ALPN h2 connection ends up on that lane, which the
 * h2c backend sees as one connection from Fairway (each lane has its own backend pool), and the
 * bytes a client sent while its connection moved all arrive. By default HTTP/2 clients get one
 * lane per core when a service speaks h2c to its backends, and every lane when none does.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class LaneHandoffTest extends VertxTestBase {
  /** The backend connections that carried a {@code /work} request (health checks have their own). */
  private final Set<HttpConnection> carried = ConcurrentHashMap.newKeySet();
  private int backendPort;

  @BeforeEach
  void h2cBackend() throws Exception {
    HttpServer server = vertx.createHttpServer().requestHandler(req -> {
      if (req.path().equals("/work")) {
        carried.add(req.connection());
      }
      req.body().onSuccess(b -> req.response().end(req.method() + " " + b.length() + " " + b.hashCode()));
    });
    backendPort = server.listen(0, "127.0.0.1").await(5, TimeUnit.SECONDS).actualPort();
  }

  private Fairway start(int instances, int h2Instances, TestConfig c) {
    return TestFairway.start(vertx, c.instances(instances).proxy("h2Instances", h2Instances).build());
  }

  private TestConfig config() {
    JsonObject b = new JsonObject().put("id", "b1").put("url", "h2c://127.0.0.1:" + backendPort).put("capacity", 100);
    return TestConfig.service("h2", b);
  }

  /** A client of its own, so a connection of its own. */
  private HttpClientAgent h2cClient() {
    return vertx.httpClientBuilder()
        .with(new HttpClientOptions().setProtocolVersion(HttpVersion.HTTP_2).setHttp2ClearTextUpgrade(false))
        .with(new PoolOptions().setHttp2MaxSize(1))
        .build();
  }

  private String post(HttpClientAgent client, int port, Buffer body) throws Exception {
    return TestClient.onLoop(vertx, () -> client.request(new RequestOptions().setMethod(HttpMethod.POST)
            .setHost("127.0.0.1").setPort(port).setURI("/work"))
        .compose(req -> req.send(body))
        .compose(resp -> resp.body().map(b -> resp.statusCode() + " " + resp.version() + " " + b)))
        .await(10, TimeUnit.SECONDS);
  }

  private static Buffer body(int size, int seed) {
    Buffer b = Buffer.buffer(size);
    for (int i = 0; i < size; i++) {
      b.appendByte((byte) (i * 31 + seed));
    }
    return b;
  }

  private static String echo(Buffer sent) {
    return "200 HTTP_2 POST " + sent.length() + " " + sent.hashCode();
  }

  @Test
  void h2cConnectionsOfEveryLaneEndUpOnTheOneHttp2LaneWithAllTheirBytes() throws Exception {
    Fairway fairway = start(4, 1, config());
    List<HttpClientAgent> conns = new ArrayList<>();
    for (int i = 0; i < 8; i++) { // one after the other, so each lane in turn accepts two
      HttpClientAgent c = h2cClient();
      Buffer sent = body(100_000, i);
      assertThat(post(c, fairway.proxyPort(), sent)).isEqualTo(echo(sent));
      conns.add(c);
    }
    for (int i = 0; i < conns.size(); i++) { // and again on the connections now settled
      Buffer sent = body(1000, 100 + i);
      assertThat(post(conns.get(i), fairway.proxyPort(), sent)).isEqualTo(echo(sent));
    }

    assertThat(carried).as("backend connections that carried requests").hasSize(1);
    TestFairway.assertIdleSoon(fairway);
  }

  @Test
  void withEveryLaneServingHttp2NoConnectionMoves() throws Exception {
    Fairway fairway = start(4, 4, config());
    sendOnFourConnections(fairway);

    assertThat(carried).as("one backend connection per lane").hasSize(4);
  }

  @Test
  void byDefaultHttp2ClientsGetOneLoopPerCoreWhenBackendsSpeakH2c() throws Exception {
    Fairway fairway = start(4, 0, config());
    sendOnFourConnections(fairway);

    int cores = Math.max(1, VertxOptions.DEFAULT_EVENT_LOOP_POOL_SIZE / 2);
    assertThat(carried).as("one backend connection per HTTP/2 lane").hasSize(Math.min(cores, 4));
  }

  @Test
  void byDefaultHttp2ClientsStayWhereAcceptedWhenBackendsSpeakHttp11() throws Exception {
    JsonObject b = new JsonObject().put("id", "b1").put("url", "http://127.0.0.1:" + backendPort).put("capacity", 100);
    Fairway fairway = start(4, 0, TestConfig.service("h1", b));
    sendOnFourConnections(fairway);

    assertThat(carried).as("one backend connection per lane").hasSize(4);
  }

  /** One request at a time on each of four connections: each lane accepts one. */
  private void sendOnFourConnections(Fairway fairway) throws Exception {
    for (int i = 0; i < 4; i++) {
      Buffer sent = body(1000, i);
      assertThat(post(h2cClient(), fairway.proxyPort(), sent)).isEqualTo(echo(sent));
    }
  }

  @Test
  void aMovedConnectionCountsOnceAgainstMaxConnections() throws Exception {
    Fairway fairway = start(4, 1, config().proxy("maxConnections", 4));
    List<HttpClientAgent> open = new ArrayList<>();
    for (int i = 0; i < 4; i++) { // one per lane: three of them move to the HTTP/2 lane
      HttpClientAgent c = h2cClient();
      assertThat(post(c, fairway.proxyPort(), body(10, i))).as("connection %d", i + 1).startsWith("200 HTTP_2");
      open.add(c);
    }
    assertThatThrownBy(() -> post(h2cClient(), fairway.proxyPort(), body(10, 9))).as("a fifth is one too many")
        .isNotNull();

    for (HttpClientAgent c : open) {
      c.close().await(5, TimeUnit.SECONDS);
    }
    for (int i = 0; i < 4; i++) { // each close gave its place back, once
      awaitAccepted(h2cClient(), fairway.proxyPort());
    }
  }

  /** The close of a connection reaches Fairway a moment after the client's: retry for a while. */
  private void awaitAccepted(HttpClientAgent c, int port) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (true) {
      try {
        assertThat(post(c, port, body(10, 1))).startsWith("200 HTTP_2");
        return;
      } catch (Exception e) {
        if (System.nanoTime() > deadline) {
          throw e;
        }
        Thread.sleep(50);
        c = h2cClient();
      }
    }
  }

  @Test
  void tlsConnectionsThatChoseH2MoveWithTheirTlsSession() throws Exception {
    Fairway fairway = start(4, 1, config().proxy("tls", TlsFiles.tls("a")));
    URI uri = URI.create("https://localhost:" + fairway.tlsPort() + "/work");
    for (int i = 0; i < 6; i++) {
      HttpClient client = HttpClient.newBuilder().sslContext(TlsClient.context(false))
          .version(HttpClient.Version.HTTP_2).connectTimeout(Duration.ofSeconds(5)).build();
      Buffer sent = body(50_000, i);
      HttpResponse<String> r = client.send(HttpRequest.newBuilder(uri)
          .POST(HttpRequest.BodyPublishers.ofByteArray(sent.getBytes())).build(), HttpResponse.BodyHandlers.ofString());
      HttpResponse<String> again = client.send(HttpRequest.newBuilder(uri).build(),
          HttpResponse.BodyHandlers.ofString());

      assertThat(r.version() + " " + r.statusCode() + " " + r.body())
          .isEqualTo("HTTP_2 200 POST " + sent.length() + " " + sent.hashCode());
      assertThat(again.statusCode()).isEqualTo(200);
    }

    assertThat(carried).as("backend connections that carried requests").hasSize(1);
  }
}
