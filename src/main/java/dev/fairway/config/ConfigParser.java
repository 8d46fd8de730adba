package dev.fairway.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Builds and validates a {@link FairwayConfig} from parsed JSON, collecting every problem before
 * it fails. This is the one place where configuration rules live.
 *
 * <p>Example: {@code parse(Map.of("services", List.of(Map.of("name", "api", "strategy", "nope"))),
 * Map.of())} throws a {@link ConfigException} whose problems include
 * {@code services[0].strategy: "nope" is invalid; expected one of round-robin, least-loaded, ...}.
 */
public final class ConfigParser {
  /** Environment variable that overrides {@code admin.token}. */
  public static final String ADMIN_TOKEN_ENV = "FAIRWAY_ADMIN_TOKEN";
  /** The token shipped in {@code conf/config.json}; it only protects a loopback admin port. */
  public static final String PLACEHOLDER_TOKEN = "change-me";
  /** What a backend URL must look like: cleartext HTTP/1.1 or TLS to the backend. */
  static final String URL_EXPECTED = "http://host:port, https://host:port or h2c://host:port";

  private final List<String> problems = new ArrayList<>();
  private final Map<String, BackendConfig> backendsById = new HashMap<>();
  private final Map<String, String> backendFirstPath = new HashMap<>();

  private ConfigParser() {
  }

  /**
   * Parses a JSON document already decoded into maps, lists, strings, numbers and booleans.
   *
   * @param root the decoded document
   * @param env  environment variables: {@code FAIRWAY_PROXY_HOST}, {@code FAIRWAY_PROXY_PORT},
   *             {@code FAIRWAY_PROXY_INSTANCES}, {@code FAIRWAY_ADMIN_HOST}, {@code FAIRWAY_ADMIN_PORT},
   *             {@value #ADMIN_TOKEN_ENV}, {@code FAIRWAY_CLIENT_ID}, {@code FAIRWAY_CLIENT_COUNT}
   *             override the matching keys
   * @throws ConfigException with one line per problem
   */
  public static FairwayConfig parse(Object root, Map<String, String> env) throws ConfigException {
    return new ConfigParser().build(root, env);
  }

  /**
   * Validates backends added at run time ({@code POST /api/services/{name}/backends}), with the
   * same rules as the file; paths read {@code [0].url}.
   *
   * @param json            the decoded request body: an array of backend objects
   * @param defaultCapacity the service's {@code slots.capacity}
   * @throws ConfigException with one line per problem
   */
  public static List<BackendConfig> parseBackends(Object json, int defaultCapacity) throws ConfigException {
    List<String> problems = new ArrayList<>();
    List<BackendConfig> out = new ArrayList<>();
    if (!(json instanceof List<?> list) || list.isEmpty()) {
      throw new ConfigException(List.of("$: " + Node.show(json) + " is invalid; expected a non-empty JSON array of "
          + "{\"url\", \"capacity\", \"id\"?, \"weight\"?}"));
    }
    Set<String> ids = new HashSet<>();
    for (int i = 0; i < list.size(); i++) {
      Node n = Node.element(i, list.get(i), problems);
      BackendConfig b = n == null ? null : backend(n, defaultCapacity);
      if (b != null && !ids.add(b.id())) {
        problems.add("[" + i + "]: backend id \"" + b.id() + "\" is listed twice; expected unique ids");
      } else if (b != null) {
        out.add(b);
      }
    }
    if (!problems.isEmpty()) {
      throw new ConfigException(problems);
    }
    return out;
  }

  private FairwayConfig build(Object rootValue, Map<String, String> env) throws ConfigException {
    Node root = Node.root(EnvOverrides.apply(rootValue, env, problems), problems);
    ProxySettings proxy = proxy(root.object("proxy"));
    AdminSettings admin = admin(root.object("admin"));
    SubsettingSettings subsetting = subsetting(root.object("subsetting"));
    Node m = root.object("metrics");
    MetricsSettings metrics = new MetricsSettings(m.bool("vertx", true));
    m.rejectUnknownKeys();
    Node r = root.object("reload");
    ReloadSettings reload = new ReloadSettings(r.longIn("scanPeriodMs", 2000, 0, 3_600_000));
    r.rejectUnknownKeys();
    Node a = root.object("accessLog");
    String format = a.string("format", "json");
    if (!AccessLogSettings.FORMATS.contains(format)) {
      a.problem("format", format, "one of " + String.join(", ", AccessLogSettings.FORMATS));
    }
    AccessLogSettings accessLog = new AccessLogSettings(a.bool("enabled", false), format);
    a.rejectUnknownKeys();
    OverloadSettings overload = OverloadParser.headers(root.object("overload"));
    ClusterSettings cluster = cluster(root.object("cluster"));
    TracingSettings tracing = TracingParser.parse(root.object("tracing"));
    List<ServiceConfig> services = services(root);
    HeaderRulesParser.checkOverloadHeaders(services, overload, problems);
    Optional<DemoSettings> demo = root.has("demo") ? Optional.of(demo(root.object("demo"))) : Optional.empty();
    root.rejectUnknownKeys();
    checkPorts(proxy, admin, demo);
    if (!problems.isEmpty()) {
      throw new ConfigException(problems);
    }
    return new FairwayConfig(proxy, admin, subsetting, metrics, reload, accessLog, services, demo, overload, cluster,
        tracing);
  }

  private static ProxySettings proxy(Node n) {
    String host = n.string("host", "0.0.0.0");
    int port = n.intIn("port", 8080, ProxySettings.NO_PORT, 65535);
    ProxySettings p = new ProxySettings(host, port,
        n.intIn("instances", 0, 0, 1024), n.longIn("drainGraceMs", 3000, 0, 3_600_000),
        n.longIn("drainTimeoutMs", 30_000, 0, 3_600_000), limits(n), TlsParser.parse(n),
        n.bool("acceptProxyProtocol", false), n.intIn("h2Instances", 0, 0, 1024));
    n.rejectUnknownKeys();
    if (!p.cleartext() && p.tls().isEmpty()) {
      n.problem("port", port, "a port from 0 to 65535; -1 (no cleartext listener) only with proxy.tls, else nothing listens");
    }
    return p;
  }

  private static EdgeLimits limits(Node n) {
    EdgeLimits d = EdgeLimits.DEFAULTS;
    String underscore = n.string("underscoreHeaders", d.underscoreHeaders().configName());
    EdgeLimits.UnderscoreHeaders mode = EdgeLimits.UnderscoreHeaders.DROP;
    if (underscore.equals("reject")) {
      mode = EdgeLimits.UnderscoreHeaders.REJECT;
    } else if (!underscore.equals("drop")) {
      n.problem("underscoreHeaders", underscore, "one of drop, reject");
    }
    return new EdgeLimits(n.intIn("maxHeaderBytes", d.maxHeaderBytes(), 256, 1 << 20),
        n.intIn("maxHeaderCount", d.maxHeaderCount(), 1, 10_000),
        n.intIn("maxRequestLineBytes", d.maxRequestLineBytes(), 64, 1 << 20),
        n.longIn("requestHeadersTimeoutMs", d.requestHeadersTimeoutMs(), 1, 3_600_000),
        n.longIn("idleTimeoutMs", d.idleTimeoutMs(), 1, 86_400_000),
        n.intIn("maxConnections", d.maxConnections(), 1, 10_000_000),
        mode, n.intIn("trustedHops", d.trustedHops(), 0, 100),
        n.intIn("h2MaxConcurrentStreams", d.h2MaxConcurrentStreams(), 0, 10_000));
  }

  private static AdminSettings admin(Node n) {
    String token = n.string("token", PLACEHOLDER_TOKEN);
    AdminSettings a = new AdminSettings(n.string("host", "127.0.0.1"), n.intIn("port", 9090, 0, 65535), token,
        allowedHosts(n));
    n.rejectUnknownKeys();
    return a;
  }

  /** {@code admin.allowedHosts}: host names, in lower case. */
  private static List<String> allowedHosts(Node n) {
    List<?> values = n.array("allowedHosts", "a JSON array of host names");
    List<String> names = new ArrayList<>();
    for (int i = 0; i < values.size(); i++) {
      if (values.get(i) instanceof String s && HostName.isValid(s)) {
        names.add(s.toLowerCase(Locale.ROOT));
      } else {
        n.problemAt(n.child("allowedHosts") + "[" + i + "]", Node.show(values.get(i)) + " is invalid; expected a host "
            + "name like admin.example, with no port, scheme, wildcard or trailing dot");
      }
    }
    return names;
  }

  private SubsettingSettings subsetting(Node n) {
    int count = n.intIn("clientCount", 1, 1, Integer.MAX_VALUE);
    int id = n.intIn("clientId", 0, 0, Integer.MAX_VALUE);
    if (id >= count) {
      n.problem("clientId", id, "an integer from 0 to clientCount - 1 = " + (count - 1));
    }
    boolean named = n.has("algorithm");
    String name = n.string("algorithm", SubsetAlgorithm.BOOK.configName());
    SubsetAlgorithm algorithm = SubsetAlgorithm.fromConfig(name).orElse(SubsetAlgorithm.BOOK);
    if (SubsetAlgorithm.fromConfig(name).isEmpty()) {
      n.problem("algorithm", name, "book or rendezvous");
    }
    n.rejectUnknownKeys();
    return new SubsettingSettings(id, count, algorithm, named);
  }

  private static ClusterSettings cluster(Node n) {
    ClusterSettings d = ClusterSettings.DEFAULTS;
    String name = n.string("nodeName", d.nodeName());
    if (!name.isEmpty() && !name.matches("[A-Za-z0-9._:-]{1,64}")) {
      n.problem("nodeName", name, "1 to 64 letters, digits, '.', '_', ':' or '-'");
      name = d.nodeName();
    }
    ClusterSettings c = new ClusterSettings(name, n.bool("shareCapacity", d.shareCapacity()),
        n.longIn("leaseIntervalMs", d.leaseIntervalMs(), 50, 60_000),
        n.longIn("reclaimMs", d.reclaimMs(), 0, 3_600_000));
    n.rejectUnknownKeys();
    return c;
  }

  private List<ServiceConfig> services(Node root) {
    if (!root.has("services")) {
      root.problemAt("services", "missing; expected a non-empty array of services");
      return List.of();
    }
    int before = problems.size();
    List<Node> nodes = root.objects("services");
    if (nodes.isEmpty() && problems.size() == before) {
      root.problemAt("services", "empty; expected at least one service");
    }
    List<ServiceConfig> out = new ArrayList<>();
    Set<String> names = new HashSet<>();
    for (Node s : nodes) {
      ServiceConfig svc = service(s);
      if (svc.name() != null && !names.add(svc.name())) {
        s.problem("name", svc.name(), "a service name not used by another service");
      }
      out.add(svc);
    }
    SplitParser.check(nodes, out);
    return out;
  }

  private ServiceConfig service(Node n) {
    String name = n.requiredString("name");
    MatchRule match = match(n.object("match"));
    String strategyText = n.string("strategy", StrategyName.ROUND_ROBIN.configName());
    StrategyName strategy = StrategyName.fromConfig(strategyText).orElse(StrategyName.ROUND_ROBIN);
    if (StrategyName.fromConfig(strategyText).isEmpty()) {
      n.problem("strategy", strategyText, "one of " + StrategyName.choices());
    }
    int subsetSize = n.intIn("subsetSize", 0, 0, Integer.MAX_VALUE);
    SlotSettings slots = SlotsParser.parse(n.object("slots"));
    Timeouts timeouts = timeouts(n.object("timeouts"));
    HealthCheckSettings health = HealthCheckParser.parse(n.object("healthCheck"));
    BalancingSettings balancing = balancing(n.object("balancing"));
    OutlierSettings outliers = OutlierParser.parse(n.object("outlierDetection"));
    long slowStartMs = n.longIn("slowStartMs", 0, 0, 3_600_000);
    int slowStartInitialPercent = n.intIn("slowStartInitialPercent", 10, 1, 100);
    int panicThresholdPercent = n.intIn("panicThresholdPercent", 50, 0, 100);
    UpstreamTls tls = UpstreamTlsParser.parse(n.object("tls"));
    GrpcSettings grpc = GrpcParser.parse(n.object("grpc"));
    ServiceOverload overload = OverloadParser.service(n);
    HeaderRules headers = HeaderRulesParser.parse(n);
    List<SplitTarget> split = SplitParser.targets(n);
    DnsDiscovery discovery = DiscoveryParser.parse(n, slots.capacity());
    List<BackendConfig> backends = new ArrayList<>();
    Set<String> ids = new HashSet<>();
    for (Node b : n.objects("backends")) {
      BackendConfig backend = backend(b, slots.capacity());
      if (backend == null) {
        continue;
      }
      if (!ids.add(backend.id())) {
        b.problemAt(b.path(), "backend id \"" + backend.id() + "\" is listed twice; expected unique ids per service");
        continue;
      }
      checkSameBackendEverywhere(b, backend);
      backends.add(backend);
    }
    n.rejectUnknownKeys();
    return new ServiceConfig(name, match, strategy, subsetSize, slots, timeouts, health, balancing, backends,
        outliers, slowStartMs, slowStartInitialPercent, panicThresholdPercent, tls, grpc, overload, headers, split,
        discovery);
  }

  private void checkSameBackendEverywhere(Node b, BackendConfig backend) {
    BackendConfig first = backendsById.putIfAbsent(backend.id(), backend);
    if (first == null) {
      backendFirstPath.put(backend.id(), b.path());
      return;
    }
    String where = backendFirstPath.get(backend.id());
    if (!first.url().equals(backend.url())) {
      b.problemAt(b.path(), "backend id \"" + backend.id() + "\" has url " + backend.url() + " but " + where
          + " gives it " + first.url() + "; expected one URL per backend id");
    } else if (first.capacity() != backend.capacity()) {
      b.problemAt(b.path() + ".capacity", backend.capacity() + " is invalid; expected " + first.capacity()
          + " as at " + where + " (one backend has one capacity)");
    }
  }

  private static MatchRule match(Node n) {
    String host = n.string("host", MatchRule.ANY_HOST).toLowerCase(Locale.ROOT);
    String prefix = n.string("pathPrefix", "/");
    if (!prefix.startsWith("/")) {
      n.problem("pathPrefix", prefix, "a path starting with /");
    }
    if (host.isBlank() || host.contains("/") || host.contains(" ")) {
      n.problem("host", host, "a host name or *");
    }
    List<String> methods = MatchConditions.methods(n);
    List<HeaderCondition> headers = MatchConditions.headers(n);
    String rewrite = MatchConditions.rewritePrefix(n);
    n.rejectUnknownKeys();
    return new MatchRule(host, prefix, methods, headers, rewrite);
  }

  private static Timeouts timeouts(Node n) {
    Timeouts t = new Timeouts(n.longIn("connectMs", 2000, 1, 3_600_000), n.longIn("responseMs", 30_000, 1, 86_400_000),
        n.longIn("uploadIdleMs", Timeouts.DEFAULT_UPLOAD_IDLE_MS, 1, 86_400_000),
        n.longIn("slowClientMs", Timeouts.DEFAULT_SLOW_CLIENT_MS, -1, 86_400_000), n.longIn("totalMs", 0, 0, 86_400_000));
    n.rejectUnknownKeys();
    return t;
  }

  private static BalancingSettings balancing(Node n) {
    BalancingSettings d = BalancingSettings.DEFAULTS;
    BalancingSettings b = new BalancingSettings(
        n.longIn("errorWindowMs", d.errorWindowMs(), 0, 3_600_000),
        n.longIn("ewmaDecayMs", d.ewmaDecayMs(), 1, 3_600_000),
        n.longIn("errorPenaltyMs", d.errorPenaltyMs(), 0, 3_600_000),
        n.intIn("fairShareWindow", d.fairShareWindow(), 1, 10_000),
        n.bool("fairShareMedian", d.fairShareMedian()),
        n.longIn("blackoutMs", d.blackoutMs(), 0, 3_600_000),
        n.longIn("expirationMs", d.expirationMs(), 1, 86_400_000),
        n.doubleIn("errorUtilizationPenalty", d.errorUtilizationPenalty(), 0, 1000));
    n.rejectUnknownKeys();
    return b;
  }

  private static BackendConfig backend(Node n, int defaultCapacity) {
    String url = n.requiredString("url");
    int capacity = n.intIn("capacity", defaultCapacity, 1, 1_000_000);
    int weight = n.intIn("weight", 1, 1, 1_000_000);
    String id = n.string("id", null);
    n.rejectUnknownKeys();
    if (url == null) {
      return null;
    }
    URI uri;
    try {
      uri = new URI(url);
    } catch (URISyntaxException e) {
      n.problem("url", url, "an absolute URL like http://127.0.0.1:9001");
      return null;
    }
    String path = uri.getRawPath();
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!(scheme.equals("http") || scheme.equals("https") || scheme.equals("h2c")) || uri.getHost() == null
        || (path != null && !path.isEmpty() && !path.equals("/")) || uri.getRawQuery() != null
        || uri.getRawUserInfo() != null) {
      n.problem("url", url, URL_EXPECTED + " with no path, query or user");
      return null;
    }
    int port = uri.getPort() == -1 ? (scheme.equals("https") ? 443 : 80) : uri.getPort();
    if (port < 1 || port > 65535) {
      n.problem("url", url, URL_EXPECTED + " with a port from 1 to 65535");
      return null;
    }
    String host = uri.getHost();
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    String canonical = scheme + "://" + uri.getHost() + ":" + port;
    if (id != null && id.isBlank()) {
      n.problem("id", id, "a non-empty id");
      return null;
    }
    return new BackendConfig(id == null ? uri.getHost() + ":" + port : id, canonical, host, port, capacity, weight);
  }

  private static DemoSettings demo(Node n) {
    List<DemoSettings.DemoBackend> backends = new ArrayList<>();
    for (Node b : n.objects("backends")) {
      int port = b.intIn("port", 0, 1, 65535);
      if (!b.has("port")) {
        b.problemAt(b.child("port"), "missing; expected a port from 1 to 65535");
      }
      backends.add(new DemoSettings.DemoBackend(port, b.longIn("workMs", 2, 0, 60_000)));
      b.rejectUnknownKeys();
    }
    n.rejectUnknownKeys();
    return new DemoSettings(backends);
  }

  private void checkPorts(ProxySettings proxy, AdminSettings admin, Optional<DemoSettings> demo) {
    Map<Integer, String> used = new HashMap<>();
    if (proxy.cleartext()) {
      claim(used, proxy.port(), "proxy.port");
    }
    proxy.tls().ifPresent(t -> claim(used, t.port(), "proxy.tls.port"));
    claim(used, admin.port(), "admin.port");
    demo.ifPresent(d -> {
      for (int i = 0; i < d.backends().size(); i++) {
        claim(used, d.backends().get(i).port(), "demo.backends[" + i + "].port");
      }
    });
  }

  private void claim(Map<Integer, String> used, int port, String path) {
    if (port == 0) {
      return;
    }
    String other = used.putIfAbsent(port, path);
    if (other != null) {
      problems.add(path + ": " + port + " is invalid; expected a port not already used by " + other);
    }
  }
}
