package dev.fairway.control;

import dev.fairway.config.HealthCheckSettings;
import io.vertx.core.Future;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;

/**
 * Runs one active health check: {@code GET path} on the backend, bounded by {@code timeoutMs}.
 *
 * <p>Example: a backend answering {@code 200} with {@code Lame-Duck: true} and
 * {@code endpoint-load-metrics: TEXT cpu_utilization=0.4} yields
 * {@code CheckResult[status=200, lameDuck=true, loadReport="TEXT cpu_utilization=0.4", failure=null]};
 * a refused connection yields a result with {@code status = 0} and a failure text.
 */
final class HealthChecker {
  private final HttpClientAgent client;

  HealthChecker(HttpClientAgent client) {
    this.client = client;
  }

  /**
   * @param status     HTTP status, or 0 when no response arrived
   * @param lameDuck   whether {@code Lame-Duck: true} came with it
   * @param loadReport the {@code endpoint-load-metrics} value, or {@code null}
   * @param failure    why no response arrived, or {@code null}
   */
  record CheckResult(int status, boolean lameDuck, String loadReport, String failure) {
  }

  Future<CheckResult> check(String host, int port, HealthCheckSettings settings) {
    RequestOptions options = new RequestOptions().setMethod(HttpMethod.GET).setHost(host).setPort(port)
        .setURI(settings.path()).setConnectTimeout(settings.timeoutMs()).setIdleTimeout(settings.timeoutMs())
        .putHeader("user-agent", "fairway-health-check");
    long deadline = settings.timeoutMs();
    return client.request(options)
        .compose(req -> req.send())
        .compose((HttpClientResponse resp) -> resp.end().map(v -> new CheckResult(resp.statusCode(),
            "true".equalsIgnoreCase(resp.getHeader("lame-duck")), resp.getHeader("endpoint-load-metrics"), null)))
        .timeout(deadline, java.util.concurrent.TimeUnit.MILLISECONDS)
        .recover(e -> Future.succeededFuture(new CheckResult(0, false, null, describe(e, deadline))));
  }

  private static String describe(Throwable e, long timeoutMs) {
    String name = e.getClass().getSimpleName();
    String msg = e.getMessage() == null ? "" : e.getMessage();
    if (name.contains("Timeout") || msg.contains("timeout") || msg.contains("Timeout")) {
      return "timeout after " + timeoutMs + " ms";
    }
    if (msg.contains("Connection refused")) {
      return "connection refused";
    }
    return msg.isEmpty() ? name : msg;
  }
}
