package dev.fairway.balancer;

/**
 * One ORCA load report of a backend ({@code endpoint-load-metrics}), the input of the capability
 * score.
 *
 * <p>Example: {@code TEXT cpu_utilization=0.42, rps_fractional=120, eps=0.5} is
 * {@code new LoadReport(0.42, 0, 120, 0.5)}; its {@link CapabilityScore#weight weight} is
 * {@code 120 / (0.42 + 0.5 / 120)} ≈ 282.9.
 *
 * @param cpuUtilization         CPU utilization (1.0 is one core's worth; may exceed 1)
 * @param applicationUtilization application-defined utilization; when above 0 it is used instead
 *                               of the CPU utilization
 * @param qps                    queries per second the backend served ({@code rps_fractional})
 * @param eps                    errors per second
 */
public record LoadReport(double cpuUtilization, double applicationUtilization, double qps, double eps) {
}
