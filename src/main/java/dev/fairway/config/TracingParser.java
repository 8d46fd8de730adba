package dev.fairway.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;

/**
 * Reads and validates the top-level {@code tracing} object, recording each problem on the
 * {@link Node} with its JSON path; absent keys take {@link TracingSettings#OFF}'s values.
 *
 * <p>Example: {@code "tracing": {"endpoint": "http://collector:4318/v1/traces"}} turns tracing on
 * with the defaults; {@code "tracing": {"endpoint": "collector:4318"}} records
 * {@code tracing.endpoint: "collector:4318" is invalid; expected an http:// or https:// URL like
 * http://127.0.0.1:4318/v1/traces}.
 */
final class TracingParser {
  private static final String ENDPOINT_EXPECTED = "an http:// or https:// URL like http://127.0.0.1:4318/v1/traces";

  private TracingParser() {
  }

  static TracingSettings parse(Node n) {
    TracingSettings d = TracingSettings.OFF;
    String endpoint = n.string("endpoint", null);
    if (endpoint != null && !isHttpUrl(endpoint)) {
      n.problem("endpoint", endpoint, ENDPOINT_EXPECTED);
      endpoint = null;
    }
    String serviceName = n.string("serviceName", d.serviceName());
    if (serviceName.isBlank()) {
      n.problem("serviceName", serviceName, "a non-empty string");
      serviceName = d.serviceName();
    }
    int maxQueueSize = n.intIn("maxQueueSize", d.maxQueueSize(), 1, 1_000_000);
    int maxBatchSize = n.intIn("maxBatchSize", d.maxBatchSize(), 1, 1_000_000);
    if (maxBatchSize > maxQueueSize) {
      n.problem("maxBatchSize", maxBatchSize, "at most maxQueueSize = " + maxQueueSize);
      maxBatchSize = Math.min(d.maxBatchSize(), maxQueueSize);
    }
    TracingSettings t = new TracingSettings(endpoint, serviceName, n.doubleIn("sampleRatio", d.sampleRatio(), 0, 1),
        n.longIn("exportTimeoutMs", d.exportTimeoutMs(), 1, 3_600_000), maxQueueSize, maxBatchSize,
        n.longIn("scheduleDelayMs", d.scheduleDelayMs(), 1, 3_600_000));
    n.rejectUnknownKeys();
    return t;
  }

  private static boolean isHttpUrl(String s) {
    try {
      URI u = new URI(s);
      String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
      return (scheme.equals("http") || scheme.equals("https")) && u.getHost() != null && u.getRawUserInfo() == null;
    } catch (URISyntaxException e) {
      return false;
    }
  }
}
