package dev.fairway.config;

import java.util.List;

/**
 * One service: the requests it matches and the backends that serve them.
 *
 * <p>Example: a service {@code demo} matching {@code {"host": "*", "pathPrefix": "/"}} with
 * strategy {@code round-robin} and backends b1, b2 sends requests b1 b2 b1 b2 ...
 *
 * @param name        unique name
 * @param match       which requests it takes
 * @param strategy    how a backend is picked
 * @param subsetSize  backends per subset; 0 means all
 * @param slots       capacities and the wait for a free slot
 * @param timeouts    upstream timeouts
 * @param healthCheck active health checking
 * @param balancing   tuning of the load-aware strategies and scores
 * @param backends    its backends, with effective capacities
 * @param outlierDetection      passive health checking and the fast-failure penalty
 * @param slowStartMs           a backend that joins or returns ramps up to its full weight and
 *                              capacity over this long; 0: at once
 * @param slowStartInitialPercent where the ramp starts, in percent of weight and capacity
 * @param panicThresholdPercent below this share of healthy subset members, the service spreads
 *                              over all of its backends; 0: never
 * @param tls                   how to speak TLS to its {@code https://} backends
 * @param grpc                  how its backends' gRPC answers are judged
 * @param overload              default criticality, retries and adaptive throttling
 * @param headers               header changes in each direction ({@code requestHeaders}, {@code responseHeaders})
 * @param split                 when not empty, the services this one hands its requests to, by weight;
 *                              such a service has no backends of its own
 * @param discovery             where backends come from besides {@code backends}
 */
public record ServiceConfig(String name, MatchRule match, StrategyName strategy, int subsetSize,
                            SlotSettings slots, Timeouts timeouts, HealthCheckSettings healthCheck,
                            BalancingSettings balancing, List<BackendConfig> backends,
                            OutlierSettings outlierDetection, long slowStartMs, int slowStartInitialPercent,
                            int panicThresholdPercent, UpstreamTls tls, GrpcSettings grpc,
                            ServiceOverload overload, HeaderRules headers, List<SplitTarget> split,
                            DnsDiscovery discovery) {
  public ServiceConfig {
    backends = List.copyOf(backends);
    split = List.copyOf(split);
  }

  /** A service without header rules, split or discovery. */
  public ServiceConfig(String name, MatchRule match, StrategyName strategy, int subsetSize, SlotSettings slots,
                       Timeouts timeouts, HealthCheckSettings healthCheck, BalancingSettings balancing,
                       List<BackendConfig> backends, OutlierSettings outlierDetection, long slowStartMs,
                       int slowStartInitialPercent, int panicThresholdPercent, UpstreamTls tls, GrpcSettings grpc,
                       ServiceOverload overload) {
    this(name, match, strategy, subsetSize, slots, timeouts, healthCheck, balancing, backends, outlierDetection,
        slowStartMs, slowStartInitialPercent, panicThresholdPercent, tls, grpc, overload, HeaderRules.NONE, List.of(),
        DnsDiscovery.NONE);
  }

  /** A service with the default overload policy ({@link ServiceOverload#DEFAULTS}). */
  public ServiceConfig(String name, MatchRule match, StrategyName strategy, int subsetSize, SlotSettings slots,
                       Timeouts timeouts, HealthCheckSettings healthCheck, BalancingSettings balancing,
                       List<BackendConfig> backends, OutlierSettings outlierDetection, long slowStartMs,
                       int slowStartInitialPercent, int panicThresholdPercent, UpstreamTls tls, GrpcSettings grpc) {
    this(name, match, strategy, subsetSize, slots, timeouts, healthCheck, balancing, backends, outlierDetection,
        slowStartMs, slowStartInitialPercent, panicThresholdPercent, tls, grpc, ServiceOverload.DEFAULTS);
  }

  /** A service without a {@code tls} or {@code grpc} object ({@link UpstreamTls#DEFAULTS}, {@link GrpcSettings#DEFAULTS}). */
  public ServiceConfig(String name, MatchRule match, StrategyName strategy, int subsetSize, SlotSettings slots,
                       Timeouts timeouts, HealthCheckSettings healthCheck, BalancingSettings balancing,
                       List<BackendConfig> backends, OutlierSettings outlierDetection, long slowStartMs,
                       int slowStartInitialPercent, int panicThresholdPercent) {
    this(name, match, strategy, subsetSize, slots, timeouts, healthCheck, balancing, backends, outlierDetection,
        slowStartMs, slowStartInitialPercent, panicThresholdPercent, UpstreamTls.DEFAULTS, GrpcSettings.DEFAULTS);
  }
}
