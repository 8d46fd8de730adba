package dev.fairway.control;

import dev.fairway.config.HealthCheckSettings;
import dev.fairway.config.HealthExpectation;
import io.vertx.core.Future;
import io.vertx.core.http.HttpClient;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.util.concurrent.TimeUnit;

/**
 * Runs one active health check with the Vert.x WebClient: {@code GET path} on the backend, bounded
 * by {@code timeoutMs}, judged by the service's {@link HealthExpectation}. Redirects are not
 * followed; only the first {@value #MAX_BODY_BYTES} bytes of a body are kept, and only when
 * {@code expectBody} is set.
 *
 * <p>Example: a backend answering {@code 200} with {@code Lame-Duck: true} and
 * {@code endpoint-load-metrics: TEXT cpu_utilization=0.4} yields
 * {@code CheckResult[status=200, lameDuck=true, loadReport="TEXT cpu_utilization=0.4", failure=null]};
 * with {@code expectStatus "200-299"} a {@code 503} yields {@code failure="status 503 not in 200-299"};
 * a refused connection yields {@code status = 0} and {@code failure="connection refused"}.
 */
final class HealthChecker {
  /** The most of a body kept to look for {@code expectBody} in. */
  static final int MAX_BODY_BYTES = 64 * 1024;
  static final String USER_AGENT = "fairway-health-check";

  private final WebClient client;

  /**
   * @param client the health-check HTTP client (keep-alive off); the WebClient wraps it and adds
   *               the {@value #USER_AGENT} user agent
   */
  HealthChecker(HttpClient client) {
    this.client = WebClient.wrap(client, new WebClientOptions().setUserAgent(USER_AGENT).setFollowRedirects(false));
  }

  /**
   * @param status     HTTP status, or 0 when no response arrived
   * @param lameDuck   whether {@code Lame-Duck: true} came with it
   * @param loadReport the {@code endpoint-load-metrics} value, or {@code null}
   * @param failure    why no response arrived, or why the response failed the expectation
   *                   (e.g. {@code status 503 not in 200-299}, {@code body lacks "ok"}); {@code null}
   *                   when it met it
   */
  record CheckResult(int status, boolean lameDuck, String loadReport, String failure) {
    /** Whether the check passed: a response that met the expectation, without {@code Lame-Duck: true}. */
    boolean passed() {
      return status != 0 && failure == null && !lameDuck;
    }
  }

  Future<CheckResult> check(String host, int port, HealthCheckSettings settings) {
    HealthExpectation expect = settings.expect();
    long deadline = settings.timeoutMs();
    HttpRequest<String> request = client.get(port, host, settings.path())
        .connectTimeout(deadline).idleTimeout(deadline)
        .as(new BoundedBodyCodec(expect.needsBody() ? MAX_BODY_BYTES : 0));
    settings.host().ifPresent(h -> request.putHeader("host", h));
    return request.send()
        .map((HttpResponse<String> resp) -> new CheckResult(resp.statusCode(),
            "true".equalsIgnoreCase(resp.getHeader("lame-duck")), resp.getHeader("endpoint-load-metrics"),
            expect.unmet(resp.statusCode(), resp.body()).orElse(null)))
        .timeout(deadline, TimeUnit.MILLISECONDS)
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
