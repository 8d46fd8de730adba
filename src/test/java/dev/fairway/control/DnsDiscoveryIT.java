package dev.fairway.control;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.fairway.Fairway;
import dev.fairway.testing.Await;
import dev.fairway.testing.FairwayProcess;
import dev.fairway.testing.LoadRun;
import dev.fairway.testing.TestBackend;
import dev.fairway.testing.TestClient;
import dev.fairway.testing.TestConfig;
import dev.fairway.testing.TestDnsServer;
import dev.fairway.testing.TestDnsServer.Srv;
import dev.fairway.testing.TestFairway;
import dev.fairway.testing.VertxTestBase;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * DNS service discovery against a real DNS server on loopback ({@link TestDnsServer}), real
 * backends and a real Fairway: answers become backends, a changed answer under load fails no
 * request, a failed lookup keeps the last good set and logs once, SRV gives ports and weights.
 */
class DnsDiscoveryIT extends VertxTestBase {
  private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
  private TestDnsServer dns;

  @BeforeEach
  void startDns() {
    dns = TestDnsServer.start();
    logs.start();
    ((Logger) LoggerFactory.getLogger(DnsWatch.class)).addAppender(logs);
  }

  @AfterEach
  void stopDns() {
    ((Logger) LoggerFactory.getLogger(DnsWatch.class)).detachAppender(logs);
    dns.close();
  }

  /** A service with no backends of its own, discovering them with {@code discovery}. */
  private TestConfig discovering(JsonObject discovery) {
    TestConfig cfg = TestConfig.service("api").healthCheck(100, 500, 1, 2).slots(10, 2000);
    cfg.lastService().put("discovery", discovery.put("server", dns.address()));
    return cfg;
  }

  private JsonArray backends(Fairway fw) throws Exception {
    return new JsonArray(TestClient.get(vertx, client, fw.adminPort(), "/api/services").body())
        .getJsonObject(0).getJsonArray("backends");
  }

  /** A Fairway that discovers {@code b} as api.test's one A record (TTL 30, refreshMs 1000), once it serves. */
  private Fairway discoveringOne(TestBackend b) throws Exception {
    dns.a("api.test", 30, "127.0.0.1");
    Fairway fw = TestFairway.start(vertx, discovering(new JsonObject().put("dns", "A").put("name", "api.test")
        .put("port", b.port()).put("refreshMs", 1000)).build());
    Await.until(() -> states(fw).equals(Map.of("api-127.0.0.1-" + b.port(), "healthy dns:A api.test")));
    return fw;
  }

  /** Each backend's id to {@code state source}. */
  private Map<String, String> states(Fairway fw) throws Exception {
    Map<String, String> out = new TreeMap<>();
    backends(fw).forEach(b -> out.put(((JsonObject) b).getString("id"),
        ((JsonObject) b).getString("state") + " " + ((JsonObject) b).getString("source")));
    return out;
  }

  /** An HTTP backend on {@code ip:port} that answers its address after {@code delayMs}, counting requests. */
  private final class IpBackend {
    final String ip;
    final AtomicInteger requests = new AtomicInteger();
    final AtomicInteger inFlight = new AtomicInteger();
    final HttpServer server;

    IpBackend(String ip, int port, long delayMs) throws Exception {
      this.ip = ip;
      server = vertx.createHttpServer().requestHandler(req -> {
        if (req.path().equals("/health")) {
          req.response().end("ok");
          return;
        }
        requests.incrementAndGet();
        inFlight.incrementAndGet();
        vertx.setTimer(delayMs, t -> {
          inFlight.decrementAndGet();
          req.response().end(ip);
        });
      }).listen(port, ip).await(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void threeAddressesServeAndAnAnswerChangedUnderLoadFailsNoRequestWhileTheRemovedOneDrains() throws Exception {
    IpBackend b1 = new IpBackend("127.0.0.1", 0, 20);
    int port = b1.server.actualPort();
    IpBackend b2 = new IpBackend("127.0.0.2", port, 20);
    IpBackend b3 = new IpBackend("127.0.0.3", port, 20);
    IpBackend b4 = new IpBackend("127.0.0.4", port, 20);
    dns.a("api.test", 30, "127.0.0.1", "127.0.0.2", "127.0.0.3");
    Fairway fw = TestFairway.start(vertx, discovering(new JsonObject().put("dns", "A").put("name", "api.test")
        .put("port", port).put("refreshMs", 1000)).build());
    String src = " dns:A api.test";
    String id1 = "api-127.0.0.1-" + port;
    String id2 = "api-127.0.0.2-" + port;
    String id3 = "api-127.0.0.3-" + port;
    String id4 = "api-127.0.0.4-" + port;

    Await.until(() -> states(fw).equals(Map.of(id1, "healthy" + src, id2, "healthy" + src, id3, "healthy" + src)));
    Set<String> served = new HashSet<>();
    for (int i = 0; i < 9; i++) {
      served.add(TestClient.get(vertx, client, fw.proxyPort(), "/").body());
    }
    assertThat(served).containsExactlyInAnyOrder("127.0.0.1", "127.0.0.2", "127.0.0.3");

    CompletableFuture<List<LoadRun.Outcome>> load = CompletableFuture.supplyAsync(() -> {
      try {
        return LoadRun.run(vertx, client, fw.proxyPort(), HttpMethod.GET, 400, 4, null, 30);
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    Thread.sleep(1000);
    dns.a("api.test", 30, "127.0.0.2", "127.0.0.3", "127.0.0.4");
    Await.until(() -> !states(fw).containsKey(id1) && states(fw).get(id4).equals("healthy" + src));
    int b1After = b1.requests.get();
    List<LoadRun.Outcome> outcomes = load.get(30, TimeUnit.SECONDS);

    assertThat(outcomes).hasSize(400).allSatisfy(o -> assertThat(o.status()).isEqualTo(200));
    assertThat(states(fw)).isEqualTo(Map.of(id2, "healthy" + src, id3, "healthy" + src, id4, "healthy" + src));
    assertThat(b1.inFlight.get()).as("the removed backend finished what it had").isZero();
    assertThat(b1.requests.get()).as("no request after it left").isEqualTo(b1After);
    assertThat(b4.requests.get()).as("the new one serves").isPositive();
    assertThat(b1.requests.get() + b2.requests.get() + b3.requests.get() + b4.requests.get()).isEqualTo(400 + 9);
    assertThat(logs.list).extracting(ILoggingEvent::getFormattedMessage)
        .contains("service api: A api.test answered 3 backends: added or updated [" + id4 + "], removed [" + id1 + "]");
  }

  @Test
  void aFailedOrEmptyLookupKeepsTheLastGoodSetAndLogsOnceUntilItRecovers() throws Exception {
    TestBackend b = TestBackend.start(vertx, req -> req.response().end("b"));
    Fairway fw = discoveringOne(b);
    String id = "api-127.0.0.1-" + b.port();

    dns.failing(true);
    int before = dns.queries();
    Await.until(() -> dns.queries() >= before + 3);
    assertThat(states(fw)).isEqualTo(Map.of(id, "healthy dns:A api.test"));
    assertThat(TestClient.get(vertx, client, fw.proxyPort(), "/").status()).isEqualTo(200);
    dns.failing(false);
    dns.a("api.test", 30);
    int empty = dns.queries();
    Await.until(() -> dns.queries() >= empty + 2);
    dns.a("api.test", 30, "127.0.0.1");
    Await.until(() -> logs.list.stream().anyMatch(e -> e.getFormattedMessage().contains("work again")));

    assertThat(logs.list).filteredOn(e -> e.getLevel().isGreaterOrEqual(Level.WARN))
        .extracting(ILoggingEvent::getFormattedMessage).containsExactly(
            "service api: DNS lookup of A api.test failed (SERVFAIL); keeping its 1 discovered backends",
            "service api: DNS lookup of A api.test failed (no records); keeping its 1 discovered backends");
    assertThat(logs.list).extracting(ILoggingEvent::getFormattedMessage)
        .filteredOn(m -> m.contains("work again")).hasSize(1);
    assertThat(states(fw)).isEqualTo(Map.of(id, "healthy dns:A api.test"));
  }

  @Test
  void aStoppedDnsServerKeepsTheBackendsAndLogsOneLine() throws Exception {
    TestBackend b = TestBackend.start(vertx, req -> req.response().end("b"));
    Fairway fw = discoveringOne(b);
    String id = "api-127.0.0.1-" + b.port();

    dns.close();
    Thread.sleep(6000);
    assertThat(logs.list).filteredOn(e -> e.getLevel().isGreaterOrEqual(Level.WARN)).hasSize(1)
        .extracting(ILoggingEvent::getFormattedMessage).containsExactly(
            "service api: DNS lookup of A api.test failed (no answer within 1000 ms); keeping its 1 discovered backends");
    assertThat(states(fw)).isEqualTo(Map.of(id, "healthy dns:A api.test"));
    assertThat(TestClient.get(vertx, client, fw.proxyPort(), "/").body()).isEqualTo("b");
  }

  @Test
  void srvRecordsOfTheLowestPriorityGiveBackendsWithTheirPortsAndWeightsReResolvedAtTheirTtl() throws Exception {
    TestBackend heavy = TestBackend.start(vertx, req -> req.response().end("heavy"));
    TestBackend light = TestBackend.start(vertx, req -> req.response().end("light"));
    TestBackend spare = TestBackend.start(vertx, req -> req.response().end("spare"));
    dns.srv("_api._tcp.test", new Srv(10, 3, heavy.port(), "127.0.0.1", 1), new Srv(10, 1, light.port(), "127.0.0.1", 1),
        new Srv(20, 1, spare.port(), "127.0.0.1", 1));
    Fairway fw = TestFairway.start(vertx, discovering(new JsonObject().put("dns", "SRV").put("name", "_api._tcp.test")
        .put("refreshMs", 600_000)).strategy("weighted-round-robin").build());
    String heavyId = "api-127.0.0.1-" + heavy.port();
    String lightId = "api-127.0.0.1-" + light.port();
    String src = " dns:SRV _api._tcp.test";
    Await.until(() -> states(fw).equals(Map.of(heavyId, "healthy" + src, lightId, "healthy" + src)));

    Map<String, Object> weights = new TreeMap<>();
    backends(fw).forEach(o -> weights.put(((JsonObject) o).getString("url"), ((JsonObject) o).getValue("weight")));
    assertThat(weights).isEqualTo(Map.of("http://127.0.0.1:" + heavy.port(), 3.0, "http://127.0.0.1:" + light.port(), 1.0));
    Map<String, Integer> counts = new ConcurrentHashMap<>();
    for (int i = 0; i < 40; i++) {
      counts.merge(TestClient.get(vertx, client, fw.proxyPort(), "/").body(), 1, Integer::sum);
    }
    assertThat(counts).isEqualTo(Map.of("heavy", 30, "light", 10));

    // refreshMs is ten minutes: only the records' one-second TTL brings the spare in this soon.
    dns.srv("_api._tcp.test", new Srv(20, 1, spare.port(), "127.0.0.1", 1));
    String spareId = "api-127.0.0.1-" + spare.port();
    Await.until(() -> states(fw).equals(Map.of(spareId, "healthy" + src)));
    assertThat(TestClient.get(vertx, client, fw.proxyPort(), "/").body()).isEqualTo("spare");
  }

  @Test
  void srvTargetNamesAreResolvedByTheDiscoverysOwnServer() throws Exception {
    // node1.test exists only in the test's DNS server, as in Consul's: the system resolver cannot find it.
    TestBackend node = TestBackend.start(vertx, req -> req.response().end("node1"));
    dns.srv("_api._tcp.test", new Srv(10, 1, node.port(), "node1.test", 30));
    dns.a("node1.test", 30, "127.0.0.1");
    Fairway fw = TestFairway.start(vertx, discovering(new JsonObject().put("dns", "SRV").put("name", "_api._tcp.test"))
        .build());
    String id = "api-127.0.0.1-" + node.port();
    Await.until(() -> states(fw).equals(Map.of(id, "healthy dns:SRV _api._tcp.test")));
    assertThat(backends(fw).getJsonObject(0).getString("url")).isEqualTo("http://127.0.0.1:" + node.port());
    assertThat(TestClient.get(vertx, client, fw.proxyPort(), "/").body()).isEqualTo("node1");
  }

  @Test
  void aRecordsAreLookedUpAgainAtTheirTtlNotOnlyAtRefreshMs() throws Exception {
    IpBackend first = new IpBackend("127.0.0.1", 0, 1);
    int port = first.server.actualPort();
    IpBackend second = new IpBackend("127.0.0.2", port, 1);
    dns.a("api.test", 1, "127.0.0.1");
    Fairway fw = TestFairway.start(vertx, discovering(new JsonObject().put("dns", "A").put("name", "api.test")
        .put("port", port).put("refreshMs", 600_000)).build());
    String src = " dns:A api.test";
    Await.until(() -> states(fw).equals(Map.of("api-127.0.0.1-" + port, "healthy" + src)));

    // refreshMs is ten minutes: only the record's one-second TTL brings the new address in this soon.
    dns.a("api.test", 1, "127.0.0.2");
    Await.until(() -> states(fw).equals(Map.of("api-127.0.0.2-" + port, "healthy" + src)));
    assertThat(TestClient.get(vertx, client, fw.proxyPort(), "/").body()).isEqualTo(second.ip);
  }

  @Test
  void discoveredBackendsAppearInMetricsWithTheirSource() throws Exception {
    TestBackend b = TestBackend.start(vertx, req -> req.response().end("b"));
    dns.a("api.test", 30, "127.0.0.1");
    TestConfig cfg = discovering(new JsonObject().put("dns", "A").put("name", "api.test").put("port", b.port()));
    cfg.lastService().put("backends", new JsonArray().add(TestConfig.backend("static", b.port(), 5)));
    Fairway fw = TestFairway.start(vertx, cfg.build());
    Await.until(() -> states(fw).size() == 2);

    String scrape = TestClient.get(vertx, client, fw.adminPort(), "/metrics").body();
    assertThat(scrape).contains("fairway_backend_source{backend=\"api-127.0.0.1-" + b.port()
        + "\",service=\"api\",source=\"dns:A api.test\"} 1.0")
        .contains("fairway_backend_source{backend=\"static\",service=\"api\",source=\"config\"} 1.0");
  }

  @Test
  void aReloadThatChangesTheDiscoveryReplacesItsBackendsAndOneThatDropsItRemovesThem(@TempDir Path dir) throws Exception {
    TestBackend b1 = TestBackend.start(vertx, req -> req.response().end("b1"));
    TestBackend b2 = TestBackend.start(vertx, req -> req.response().end("b2"));
    dns.a("api.test", 30, "127.0.0.1");
    dns.srv("_api._tcp.test", new Srv(1, 1, b2.port(), "127.0.0.1", 30));
    TestConfig cfg = discovering(new JsonObject().put("dns", "A").put("name", "api.test").put("port", b1.port()));
    cfg.json().put("reload", new JsonObject().put("scanPeriodMs", 200));
    Path file = dir.resolve("config.json");
    String text = cfg.json().encodePrettily();
    Files.writeString(file, text);
    Fairway fw = Fairway.start(vertx, cfg.build(), new BalancerVerticle.ConfigSource(file, ConfigReloader.shortHash(text)),
        new PrometheusMeterRegistry(PrometheusConfig.DEFAULT)).await(10, TimeUnit.SECONDS);
    String id1 = "api-127.0.0.1-" + b1.port();
    Await.until(() -> states(fw).equals(Map.of(id1, "healthy dns:A api.test")));

    cfg.lastService().put("discovery", new JsonObject().put("dns", "SRV").put("name", "_api._tcp.test")
        .put("server", dns.address()));
    Files.writeString(file, cfg.json().encodePrettily());
    String id2 = "api-127.0.0.1-" + b2.port();
    Await.until(() -> states(fw).equals(Map.of(id2, "healthy dns:SRV _api._tcp.test")));
    assertThat(TestClient.get(vertx, client, fw.proxyPort(), "/").body()).isEqualTo("b2");

    cfg.lastService().remove("discovery");
    cfg.lastService().put("backends", new JsonArray().add(TestConfig.backend("static", b1.port(), 5)));
    Files.writeString(file, cfg.json().encodePrettily());
    Await.until(() -> states(fw).equals(Map.of("static", "healthy config")));
  }

  @Test
  void badDiscoveryExitsWithTwoNamingThePath(@TempDir Path dir) throws Exception {
    Path conf = dir.resolve("bad.json");
    Files.writeString(conf, """
        {"services": [{"name": "api", "discovery": {"dns": "AAAA", "name": "api.test", "refreshMs": 10}}]}
        """);
    try (FairwayProcess p = FairwayProcess.start(conf)) {
      assertThat(p.waitForExit(30)).isTrue();
      assertThat(p.exitValue()).isEqualTo(2);
      assertThat(p.lines()).contains("  services[0].discovery.dns: \"AAAA\" is invalid; expected A or SRV",
          "  services[0].discovery.refreshMs: 10 is invalid; expected an integer from 1000 to 3600000");
    }
  }
}
