package dev.fairway.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairway.control.JsonValues;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The config contract of the design: valid files become the expected records with the documented
 * defaults, and every kind of invalid input gives one line naming the JSON path, the bad value and
 * what was expected, all problems at once.
 */
class ConfigParserTest {
  private static final String NO_PATH = "http://host:port, https://host:port or h2c://host:port with no path, query or user";
  private static final String BAD_PORT = "http://host:port, https://host:port or h2c://host:port with a port from 1 to 65535";

  @Test
  void shippedConfigFileParses() throws Exception {
    FairwayConfig c = parseText(Files.readString(Path.of("conf", "config.json")));

    assertThat(c.proxy()).isEqualTo(new ProxySettings("0.0.0.0", 8080, 0, 3000, 30_000));
    assertThat(c.admin()).isEqualTo(new AdminSettings("127.0.0.1", 9090, "change-me"));
    assertThat(c.services()).singleElement().satisfies(s -> {
      assertThat(s.name()).isEqualTo("demo");
      assertThat(s.backends()).extracting(BackendConfig::id).containsExactly("demo-1", "demo-2", "demo-3");
    });
    assertThat(c.demo()).isPresent();
  }

  @Test
  void fullConfigBecomesTheExpectedRecords() throws Exception {
    FairwayConfig c = parse(full());

    assertThat(c.proxy()).isEqualTo(new ProxySettings("0.0.0.0", 8080, 0, 3000, 30_000));
    assertThat(c.admin()).isEqualTo(new AdminSettings("127.0.0.1", 9090, "change-me"));
    assertThat(c.admin().toString()).doesNotContain("change-me");
    assertThat(c.subsetting()).isEqualTo(new SubsettingSettings(0, 1));
    assertThat(c.services()).singleElement().isEqualTo(new ServiceConfig("demo",
        new MatchRule("*", "/"), StrategyName.WEIGHTED_ROUND_ROBIN, 0,
        new SlotSettings(100, 1000, 10000, 0), new Timeouts(2000, 30000),
        new HealthCheckSettings("/health", 2000, 1000, 2, 3), BalancingSettings.DEFAULTS,
        List.of(new BackendConfig("b1", "http://127.0.0.1:9001", "127.0.0.1", 9001, 3, 1),
            new BackendConfig("b2", "http://127.0.0.1:9002", "127.0.0.1", 9002, 4, 1)),
        OutlierSettings.DEFAULTS, 0, 10, 50));
    assertThat(c.demo()).contains(new DemoSettings(List.of(
        new DemoSettings.DemoBackend(9001, 2), new DemoSettings.DemoBackend(9002, 2))));
  }

  @Test
  void minimalConfigGetsTheDocumentedDefaults() throws Exception {
    FairwayConfig c = parseText("""
        {"services": [{"name": "api", "slots": {"capacity": 7},
                       "backends": [{"url": "http://127.0.0.1:9001"}, {"url": "http://Backend.local"}]}]}
        """);

    assertThat(c.proxy()).isEqualTo(new ProxySettings("0.0.0.0", 8080, 0, 3000, 30_000));
    assertThat(c.admin()).isEqualTo(new AdminSettings("127.0.0.1", 9090, ConfigParser.PLACEHOLDER_TOKEN));
    assertThat(c.subsetting()).isEqualTo(new SubsettingSettings(0, 1));
    assertThat(c.cluster()).isEqualTo(new ClusterSettings("", true, 250));
    assertThat(c.demo()).isEmpty();
    ServiceConfig s = c.services().get(0);
    assertThat(s.match()).isEqualTo(new MatchRule("*", "/"));
    assertThat(s.strategy()).isEqualTo(StrategyName.ROUND_ROBIN);
    assertThat(s.subsetSize()).isZero();
    assertThat(s.slots()).isEqualTo(new SlotSettings(7, 1000, 10000, 0));
    assertThat(s.timeouts()).isEqualTo(new Timeouts(2000, 30000));
    assertThat(s.healthCheck()).isEqualTo(new HealthCheckSettings("/health", 2000, 1000, 2, 3));
    assertThat(s.backends()).containsExactly(
        new BackendConfig("127.0.0.1:9001", "http://127.0.0.1:9001", "127.0.0.1", 9001, 7, 1),
        new BackendConfig("Backend.local:80", "http://Backend.local:80", "Backend.local", 80, 7, 1));
  }

  @Test
  void sameBackendInTwoServicesIsAccepted() throws Exception {
    JsonObject root = full();
    root.getJsonArray("services").add(service("other", backend("b1", "http://127.0.0.1:9001").put("capacity", 3)));

    FairwayConfig c = parse(root);

    assertThat(c.services()).extracting(ServiceConfig::name).containsExactly("demo", "other");
    assertThat(c.services().get(1).backends().get(0)).isEqualTo(c.services().get(0).backends().get(0));
  }

  @Test
  void environmentTokenOverridesTheFile() throws Exception {
    Object root = JsonValues.toPlain(full());

    assertThat(ConfigParser.parse(root, Map.of(ConfigParser.ADMIN_TOKEN_ENV, "from-env-0123")).admin().token())
        .isEqualTo("from-env-0123");
    assertThat(ConfigParser.parse(root, Map.of(ConfigParser.ADMIN_TOKEN_ENV, " ")).admin().token())
        .isEqualTo("change-me");
  }

  @Test
  void environmentOverridesSingleKeysAndIsValidatedLikeTheFile() throws Exception {
    Object root = JsonValues.toPlain(full());

    FairwayConfig c = ConfigParser.parse(root, Map.of("FAIRWAY_PROXY_PORT", "8181", "FAIRWAY_ADMIN_HOST", "0.0.0.0",
        "FAIRWAY_CLIENT_ID", "1", "FAIRWAY_CLIENT_COUNT", "3"));
    assertThat(c.proxy().port()).isEqualTo(8181);
    assertThat(c.admin().host()).isEqualTo("0.0.0.0");
    assertThat(c.subsetting()).isEqualTo(new SubsettingSettings(1, 3));
    assertThatThrownBy(() -> ConfigParser.parse(root, Map.of("FAIRWAY_PROXY_PORT", "http", "FAIRWAY_ADMIN_PORT", "70000")))
        .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.problems()).containsExactly(
            "env FAIRWAY_PROXY_PORT: \"http\" is invalid; expected an integer",
            "admin.port: 70000 is invalid; expected an integer from 0 to 65535"));
  }

  @Test
  void adminAllowedHostsAreLowerCasedAndEmptyByDefault() throws Exception {
    JsonObject root = full();
    assertThat(parse(root).admin().allowedHosts()).isEmpty();

    root.getJsonObject("admin").put("allowedHosts", new JsonArray().add("Admin.Example").add("fairway-admin"));

    assertThat(parse(root).admin()).isEqualTo(
        new AdminSettings("127.0.0.1", 9090, "change-me", List.of("admin.example", "fairway-admin")));
  }

  @Test
  void adminAllowedHostsMustBeAnArray() {
    JsonObject root = full();
    root.getJsonObject("admin").put("allowedHosts", "admin.example");

    assertThat(problems(root)).containsExactly(
        "admin.allowedHosts: \"admin.example\" is invalid; expected a JSON array of host names");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "'\"admin.example:9090\"'  | \"admin.example:9090\"",
      "'\"*.example\"'           | \"*.example\"",
      "'\"http://admin\"'        | \"http://admin\"",
      "'\"localhost.\"'          | \"localhost.\"",
      "'\"\"'                    | \"\"",
      "7                        | 7",
      "null                     | null",
      "'[\"a\"]'                 | an array",
  })
  void adminAllowedHostsMustBeHostNames(String json, String shown) {
    JsonObject root = full();
    root.getJsonObject("admin").put("allowedHosts", new JsonArray("[\"ok.example\", " + json + "]"));

    assertThat(problems(root)).containsExactly("admin.allowedHosts[1]: " + shown
        + " is invalid; expected a host name like admin.example, with no port, scheme, wildcard or trailing dot");
  }

  @Test
  void clusterSettingsAreReadAndChecked() throws Exception {
    JsonObject root = full().put("cluster", new JsonObject().put("nodeName", "edge-a.dc1:8080")
        .put("shareCapacity", false).put("leaseIntervalMs", 500).put("reclaimMs", 0));
    assertThat(parse(root).cluster()).isEqualTo(new ClusterSettings("edge-a.dc1:8080", false, 500, 0));

    root.put("cluster", new JsonObject().put("nodeName", "edge a").put("leaseIntervalMs", 10).put("share", true)
        .put("reclaimMs", -1));
    assertThat(problems(root)).containsExactly(
        "cluster.nodeName: \"edge a\" is invalid; expected 1 to 64 letters, digits, '.', '_', ':' or '-'",
        "cluster.leaseIntervalMs: 10 is invalid; expected an integer from 50 to 60000",
        "cluster.reclaimMs: -1 is invalid; expected an integer from 0 to 3600000",
        "cluster.share: unknown key; expected one of nodeName, shareCapacity, leaseIntervalMs, reclaimMs");
  }

  @Test
  void unknownStrategy() {
    JsonObject root = full();
    firstService(root).put("strategy", "fastest");

    assertThat(problems(root)).containsExactly("services[0].strategy: \"fastest\" is invalid; expected one of "
        + "round-robin, least-loaded, weighted-round-robin, slot-queue, fair-share, "
        + "interleaved-weighted-round-robin, p2c-peak-ewma");
  }

  @Test
  void duplicateBackendIdInOneService() {
    JsonObject root = full();
    firstService(root).getJsonArray("backends").getJsonObject(1).put("id", "b1");

    assertThat(problems(root)).containsExactly(
        "services[0].backends[1]: backend id \"b1\" is listed twice; expected unique ids per service");
  }

  @Test
  void sameIdWithAnotherUrlInAnotherService() {
    JsonObject root = full();
    root.getJsonArray("services").add(service("other", backend("b1", "http://127.0.0.1:9009")));

    assertThat(problems(root)).containsExactly("services[1].backends[0]: backend id \"b1\" has url "
        + "http://127.0.0.1:9009 but services[0].backends[0] gives it http://127.0.0.1:9001; "
        + "expected one URL per backend id");
  }

  @Test
  void sameBackendWithAnotherCapacityInAnotherService() {
    JsonObject root = full();
    root.getJsonArray("services").add(service("other", backend("b1", "http://127.0.0.1:9001").put("capacity", 5)));

    assertThat(problems(root)).containsExactly("services[1].backends[0].capacity: 5 is invalid; expected 3 "
        + "as at services[0].backends[0] (one backend has one capacity)");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "ftp://127.0.0.1:9001         | " + NO_PATH,
      "https://127.0.0.1:9001/api   | " + NO_PATH,
      "http://127.0.0.1:9001/api    | " + NO_PATH,
      "http://127.0.0.1:9001/?x=1   | " + NO_PATH,
      "http://user@127.0.0.1:9001   | " + NO_PATH,
      "127.0.0.1:9001               | an absolute URL like http://127.0.0.1:9001",
      "garbage                      | " + NO_PATH,
      "http://127.0.0.1:99999       | " + BAD_PORT,
      "http://127.0.0.1:0           | " + BAD_PORT,
      "http://exa mple:80           | an absolute URL like http://127.0.0.1:9001",
      "h2://127.0.0.1:9001          | " + NO_PATH,
      "h2c://127.0.0.1:9001/grpc    | " + NO_PATH,
  })
  void badBackendUrl(String url, String expected) {
    JsonObject root = full();
    firstService(root).getJsonArray("backends").getJsonObject(0).put("url", url);

    assertThat(problems(root)).containsExactly(
        "services[0].backends[0].url: \"" + url + "\" is invalid; expected " + expected);
  }

  @Test
  void h2cBackendSpeaksHttp2WithPriorKnowledgeOnPort80ByDefault() throws Exception {
    JsonObject root = full();
    firstService(root).getJsonArray("backends").getJsonObject(0).put("url", "H2C://127.0.0.1");

    BackendConfig b = parse(root).services().get(0).backends().get(0);

    assertThat(List.of(b.url(), b.port(), b.h2c(), b.tls())).containsExactly("h2c://127.0.0.1:80", 80, true, false);
  }

  @Test
  void negativeCapacity() {
    JsonObject root = full();
    firstService(root).getJsonArray("backends").getJsonObject(0).put("capacity", -1);
    firstService(root).getJsonObject("slots").put("capacity", 0);

    assertThat(problems(root)).containsExactly(
        "services[0].slots.capacity: 0 is invalid; expected an integer from 1 to 1000000",
        "services[0].backends[0].capacity: -1 is invalid; expected an integer from 1 to 1000000");
  }

  @Test
  void portsOutOfRange() {
    JsonObject root = full();
    root.getJsonObject("proxy").put("port", 70000);
    root.getJsonObject("admin").put("port", -1);
    root.getJsonObject("demo").getJsonArray("backends").getJsonObject(0).put("port", 0);

    assertThat(problems(root)).containsExactly(
        "proxy.port: 70000 is invalid; expected an integer from -1 to 65535",
        "admin.port: -1 is invalid; expected an integer from 0 to 65535",
        "demo.backends[0].port: 0 is invalid; expected an integer from 1 to 65535");
  }

  @Test
  void missingServices() {
    assertThat(problemsOfText("{\"proxy\": {\"port\": 8080}}"))
        .containsExactly("services: missing; expected a non-empty array of services");
  }

  @Test
  void emptyServices() {
    assertThat(problemsOfText("{\"services\": []}")).containsExactly("services: empty; expected at least one service");
  }

  @Test
  void missingRequiredStrings() {
    assertThat(problemsOfText("{\"services\": [{\"backends\": [{\"id\": \"b1\"}]}]}")).containsExactly(
        "services[0].name: missing; expected a non-empty string",
        "services[0].backends[0].url: missing; expected a non-empty string");
  }

  @Test
  void unknownKeysAtEveryLevel() {
    JsonObject root = full();
    root.put("servcies", new JsonArray());
    root.getJsonObject("proxy").put("prot", 1);
    firstService(root).put("stratgey", "round-robin");
    firstService(root).getJsonObject("slots").put("capacty", 1);
    firstService(root).getJsonArray("backends").getJsonObject(0).put("wieght", 2);
    root.getJsonObject("demo").getJsonArray("backends").getJsonObject(1).put("prt", 1);

    assertThat(problems(root)).containsExactlyInAnyOrder(
        "servcies: unknown key; expected one of proxy, admin, subsetting, metrics, reload, accessLog, overload, cluster, tracing, services, demo",
        "proxy.prot: unknown key; expected one of host, port, instances, drainGraceMs, drainTimeoutMs, "
            + "underscoreHeaders, maxHeaderBytes, maxHeaderCount, maxRequestLineBytes, requestHeadersTimeoutMs, "
            + "idleTimeoutMs, maxConnections, trustedHops, h2MaxConcurrentStreams, tls, acceptProxyProtocol, h2Instances",
        "services[0].stratgey: unknown key; expected one of name, match, strategy, subsetSize, slots, "
            + "timeouts, healthCheck, balancing, outlierDetection, slowStartMs, slowStartInitialPercent, "
            + "panicThresholdPercent, tls, grpc, defaultCriticality, retry, throttle, requestHeaders, "
            + "responseHeaders, split, discovery, backends",
        "services[0].slots.capacty: unknown key; expected one of capacity, waitTimeoutMs, maxWaiting, maxActive",
        "services[0].backends[0].wieght: unknown key; expected one of url, capacity, weight, id",
        "demo.backends[1].prt: unknown key; expected one of port, workMs");
  }

  @Test
  void wrongTypes() {
    JsonObject root = full();
    root.getJsonObject("proxy").put("port", "8080");
    root.getJsonObject("admin").put("token", 42);
    root.put("subsetting", "none");
    firstService(root).put("subsetSize", 1.5);
    firstService(root).put("match", new JsonArray());
    firstService(root).getJsonArray("backends").set(1, "http://127.0.0.1:9002");
    firstService(root).getJsonObject("healthCheck").put("intervalMs", true);

    assertThat(problems(root)).containsExactlyInAnyOrder(
        "proxy.port: \"8080\" is invalid; expected an integer from -1 to 65535",
        "admin.token: 42 is invalid; expected a string",
        "subsetting: \"none\" is invalid; expected a JSON object",
        "services[0].subsetSize: 1.5 is invalid; expected an integer >= 0",
        "services[0].match: an array is invalid; expected a JSON object",
        "services[0].backends[1]: \"http://127.0.0.1:9002\" is invalid; expected a JSON object",
        "services[0].healthCheck.intervalMs: true is invalid; expected an integer from 10 to 3600000");
  }

  @Test
  void acceptProxyProtocolIsABoolean() throws Exception {
    JsonObject root = full();
    root.getJsonObject("proxy").put("acceptProxyProtocol", true);
    assertThat(parse(root).proxy().acceptProxyProtocol()).isTrue();

    root.getJsonObject("proxy").put("acceptProxyProtocol", "yes");
    assertThat(problems(root)).containsExactly("proxy.acceptProxyProtocol: \"yes\" is invalid; expected true or false");
  }

  @Test
  void h2InstancesIsACountOfProxyVerticles() throws Exception {
    JsonObject root = full();
    assertThat(parse(root).proxy().h2Instances()).as("default: chosen at start").isZero();
    root.getJsonObject("proxy").put("h2Instances", 3);
    assertThat(parse(root).proxy().h2Instances()).isEqualTo(3);

    root.getJsonObject("proxy").put("h2Instances", -1);
    assertThat(problems(root)).containsExactly("proxy.h2Instances: -1 is invalid; expected an integer from 0 to 1024");
  }

  @Test
  void servicesOfTheWrongTypeIsOneProblem() {
    assertThat(problemsOfText("{\"services\": {\"name\": \"api\"}}"))
        .containsExactly("services: an object is invalid; expected a JSON array of objects");
  }

  @Test
  void rootMustBeAnObject() {
    assertThat(problemsOfText("[1, 2]")).contains("$: an array is invalid; expected a JSON object");
  }

  @ParameterizedTest(name = "clientId={0} clientCount={1}")
  @CsvSource({"1, 1, 0", "5, 3, 2"})
  void clientIdMustBeBelowClientCount(int id, int count, int last) {
    JsonObject root = full();
    root.put("subsetting", new JsonObject().put("clientId", id).put("clientCount", count));

    assertThat(problems(root)).containsExactly(
        "subsetting.clientId: " + id + " is invalid; expected an integer from 0 to clientCount - 1 = " + last);
  }

  @Test
  void subsettingAlgorithmIsBookByDefaultOrRendezvous() throws Exception {
    JsonObject root = full();
    root.put("subsetting", new JsonObject().put("clientId", 1).put("clientCount", 3).put("algorithm", "rendezvous"));
    assertThat(ConfigParser.parse(JsonValues.toPlain(root), Map.of()).subsetting())
        .isEqualTo(new SubsettingSettings(1, 3, SubsetAlgorithm.RENDEZVOUS));
    // Cluster mode defaults to rendezvous, but keeps an algorithm the file names.
    root.getJsonObject("subsetting").put("algorithm", "book");
    assertThat(parse(root).subsetting().clusterAlgorithm()).isEqualTo(SubsetAlgorithm.BOOK);
    root.getJsonObject("subsetting").remove("algorithm");
    assertThat(parse(root).subsetting()).isEqualTo(new SubsettingSettings(1, 3, SubsetAlgorithm.BOOK, false));
    assertThat(parse(root).subsetting().clusterAlgorithm()).isEqualTo(SubsetAlgorithm.RENDEZVOUS);
    root.getJsonObject("subsetting").put("algorithm", "ring");
    assertThat(problems(root)).containsExactly("subsetting.algorithm: \"ring\" is invalid; expected book or rendezvous");
  }

  @Test
  void portsMustNotClash() {
    JsonObject root = full();
    root.getJsonObject("admin").put("port", 8080);
    root.getJsonObject("demo").getJsonArray("backends").getJsonObject(1).put("port", 9001);

    assertThat(problems(root)).containsExactly(
        "admin.port: 8080 is invalid; expected a port not already used by proxy.port",
        "demo.backends[1].port: 9001 is invalid; expected a port not already used by demo.backends[0].port");
  }

  @Test
  void portZeroNeverClashes() throws Exception {
    JsonObject root = full();
    root.getJsonObject("proxy").put("port", 0);
    root.getJsonObject("admin").put("port", 0);

    assertThat(parse(root).admin().port()).isZero();
  }

  @Test
  void everyProblemIsReportedAtOnce() {
    JsonObject root = full();
    root.getJsonObject("proxy").put("port", 70000);
    firstService(root).put("strategy", "fastest");
    firstService(root).getJsonArray("backends").getJsonObject(0).put("url", "ftp://127.0.0.1:9001");
    firstService(root).getJsonArray("backends").getJsonObject(1).put("capacity", -4);
    root.put("extra", true);

    assertThatThrownBy(() -> parse(root)).isInstanceOfSatisfying(ConfigException.class, e -> {
      assertThat(e.problems()).hasSize(5);
      assertThat(e.problems()).anySatisfy(p -> assertThat(p).startsWith("proxy.port: 70000 is invalid"))
          .anySatisfy(p -> assertThat(p).startsWith("services[0].strategy: \"fastest\" is invalid"))
          .anySatisfy(p -> assertThat(p).startsWith("services[0].backends[0].url: \"ftp://127.0.0.1:9001\" is invalid"))
          .anySatisfy(p -> assertThat(p).startsWith("services[0].backends[1].capacity: -4 is invalid"))
          .anySatisfy(p -> assertThat(p).startsWith("extra: unknown key"));
      assertThat(e.getMessage()).isEqualTo(String.join("\n", e.problems()));
    });
  }

  /** The design's example config: one weighted-round-robin service over b1 and b2, two demo backends. */
  private static JsonObject full() {
    return new JsonObject("""
        {
          "proxy":   { "host": "0.0.0.0", "port": 8080, "instances": 0 },
          "admin":   { "host": "127.0.0.1", "port": 9090, "token": "change-me" },
          "subsetting": { "clientId": 0, "clientCount": 1 },
          "services": [{
            "name": "demo",
            "match": { "host": "*", "pathPrefix": "/" },
            "strategy": "weighted-round-robin",
            "subsetSize": 0,
            "slots":    { "capacity": 100, "waitTimeoutMs": 1000, "maxWaiting": 10000 },
            "timeouts": { "connectMs": 2000, "responseMs": 30000 },
            "healthCheck": { "path": "/health", "intervalMs": 2000, "timeoutMs": 1000,
                             "healthyThreshold": 2, "unhealthyThreshold": 3 },
            "backends": [
              { "id": "b1", "url": "http://127.0.0.1:9001", "capacity": 3, "weight": 1 },
              { "id": "b2", "url": "http://127.0.0.1:9002", "capacity": 4 }
            ]
          }],
          "demo": { "backends": [ { "port": 9001 }, { "port": 9002 } ] }
        }
        """);
  }

  private static JsonObject firstService(JsonObject root) {
    return root.getJsonArray("services").getJsonObject(0);
  }

  private static JsonObject service(String name, JsonObject... backends) {
    return new JsonObject().put("name", name).put("match", new JsonObject().put("pathPrefix", "/" + name))
        .put("backends", new JsonArray(List.of((Object[]) backends)));
  }

  private static JsonObject backend(String id, String url) {
    return new JsonObject().put("id", id).put("url", url);
  }

  private static FairwayConfig parse(JsonObject root) throws ConfigException {
    return ConfigParser.parse(JsonValues.toPlain(root), Map.of());
  }

  /** Decodes the text as Main does (Vert.x JSON, then plain maps) and parses it with an empty env. */
  private static FairwayConfig parseText(String json) throws ConfigException {
    return ConfigParser.parse(JsonValues.toPlain(Json.decodeValue(json)), Map.of());
  }

  /** The problem lines the parser reports for an invalid config; fails if it is accepted. */
  private static List<String> problems(JsonObject root) {
    return problemsOfText(root.encode());
  }

  private static List<String> problemsOfText(String json) {
    try {
      FairwayConfig accepted = parseText(json);
      throw new AssertionError("expected problems, but the config was accepted: " + accepted);
    } catch (ConfigException e) {
      return e.problems();
    }
  }
}
