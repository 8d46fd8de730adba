package dev.fairway.config;

import java.util.List;
import java.util.Optional;

/**
 * The whole validated configuration of one Fairway process.
 *
 * <p>Example: {@code ConfigParser.parse(Map.of("services", List.of(...)))} yields a
 * {@code FairwayConfig} whose {@code proxy().port()} is 8080 unless the file says otherwise.
 *
 * @param proxy      the client-facing listener
 * @param admin      the admin listener and its token
 * @param subsetting this process's client id and the number of proxy processes
 * @param metrics    which meters {@code /metrics} exposes
 * @param reload     how the config file is watched
 * @param accessLog  the per-request access log
 * @param services   the services, in file order
 * @param demo       embedded sample backends, when present
 * @param overload   which headers carry criticality and deadlines
 * @param cluster    node name and capacity sharing in cluster mode
 * @param tracing    W3C trace context and OpenTelemetry spans ({@link TracingSettings#OFF} by default)
 */
public record FairwayConfig(ProxySettings proxy, AdminSettings admin, SubsettingSettings subsetting,
                            MetricsSettings metrics, ReloadSettings reload, AccessLogSettings accessLog,
                            List<ServiceConfig> services, Optional<DemoSettings> demo, OverloadSettings overload,
                            ClusterSettings cluster, TracingSettings tracing) {
  public FairwayConfig {
    services = List.copyOf(services);
  }

  /** A configuration with the default {@code overload} headers, cluster settings and no tracing. */
  public FairwayConfig(ProxySettings proxy, AdminSettings admin, SubsettingSettings subsetting,
                       MetricsSettings metrics, ReloadSettings reload, AccessLogSettings accessLog,
                       List<ServiceConfig> services, Optional<DemoSettings> demo) {
    this(proxy, admin, subsetting, metrics, reload, accessLog, services, demo, OverloadSettings.DEFAULTS,
        ClusterSettings.DEFAULTS, TracingSettings.OFF);
  }

  /** This configuration with another {@code subsetting} (cluster mode sets it from the membership). */
  public FairwayConfig withSubsetting(SubsettingSettings next) {
    return new FairwayConfig(proxy, admin, next, metrics, reload, accessLog, services, demo, overload, cluster,
        tracing);
  }

  /**
   * Whether some service speaks HTTP/2 with prior knowledge to its backends ({@code h2c://}
   * backends, or DNS discovery with scheme {@code h2c}).
   */
  public boolean h2cBackends() {
    return services.stream().anyMatch(s -> s.discovery().scheme().equals("h2c")
        || s.backends().stream().anyMatch(BackendConfig::h2c));
  }
}
