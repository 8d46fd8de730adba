package dev.fairway.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reads and validates a service's {@code healthCheck} object, recording each problem on the
 * {@link Node} with its JSON path.
 *
 * <p>Example: {@code {"expectStatus": ["200-299", "404"], "expectBody": "ok", "host": "api.example:8080"}}
 * gives settings whose expectation reads {@code 200-299, 404} and whose {@code Host} is
 * {@code api.example:8080}; {@code {"expectStatus": "2xx"}} at {@code services[0].healthCheck}
 * records {@code services[0].healthCheck.expectStatus: "2xx" is invalid; expected a status like
 * "204" or a range like "200-399" (100 to 599, low end first), or a non-empty JSON array of them}.
 * {@code {"type": "grpc", "grpcService": "shop.Cart"}} gives a gRPC check of {@code shop.Cart}.
 */
final class HealthCheckParser {
  static final String ONE_STATUS = "a status like \"204\" or a range like \"200-399\" (100 to 599, low end first)";
  static final String STATUS_EXPECTED = ONE_STATUS + ", or a non-empty JSON array of them";
  static final String HOST_EXPECTED = "a host name or IPv4 address with an optional port, like api.example or "
      + "api.example:8080, or a bracketed IPv6 address like [::1]:8080";

  private HealthCheckParser() {
  }

  static HealthCheckSettings parse(Node n) {
    String path = n.string("path", "/health");
    if (!path.startsWith("/")) {
      n.problem("path", path, "a path starting with /");
    }
    long intervalMs = n.longIn("intervalMs", 2000, 10, 3_600_000);
    long timeoutMs = n.longIn("timeoutMs", 1000, 1, 3_600_000);
    int healthy = n.intIn("healthyThreshold", 2, 1, 1000);
    int unhealthy = n.intIn("unhealthyThreshold", 3, 1, 1000);
    List<HealthExpectation.StatusRange> statuses = statuses(n);
    String body = n.string("expectBody", null);
    if (body != null && (body.isEmpty() || body.length() > HealthExpectation.MAX_BODY_NEEDLE)) {
      n.problem("expectBody", body, "a non-empty string of at most " + HealthExpectation.MAX_BODY_NEEDLE
          + " characters");
      body = null;
    }
    String host = n.string("host", null);
    if (host != null && !isHostHeader(host)) {
      n.problem("host", host, HOST_EXPECTED);
      host = null;
    }
    Optional<String> grpcService = grpc(n);
    n.rejectUnknownKeys();
    return new HealthCheckSettings(path, intervalMs, timeoutMs, healthy, unhealthy,
        new HealthExpectation(statuses, body), Optional.ofNullable(host), grpcService);
  }

  /**
   * {@code type} ({@code "http"} or {@code "grpc"}) and {@code grpcService}: the service to ask
   * about for a gRPC check (default {@code ""}, the whole server), else empty. The HTTP-only keys
   * are problems with a gRPC check, {@code grpcService} with an HTTP one: a key that would be
   * silently ignored is a mistake to point out.
   */
  private static Optional<String> grpc(Node n) {
    String type = n.string("type", "http");
    String service = n.string("grpcService", null);
    if (!type.equals("http") && !type.equals("grpc")) {
      n.problem("type", type, "\"http\" or \"grpc\"");
      return Optional.empty();
    }
    if (type.equals("http")) {
      if (service != null) {
        n.problemAt(n.child("grpcService"), "applies to gRPC checks only; expected it with \"type\": \"grpc\"");
      }
      return Optional.empty();
    }
    for (String httpOnly : List.of("path", "expectStatus", "expectBody")) {
      if (n.has(httpOnly)) {
        n.problemAt(n.child(httpOnly), "applies to HTTP checks only; a gRPC check passes on SERVING");
      }
    }
    return Optional.of(service == null ? "" : service);
  }

  /** {@code expectStatus}: one status or range, or an array of them; the default is 200-299. */
  private static List<HealthExpectation.StatusRange> statuses(Node n) {
    Object value = n.value("expectStatus");
    if (value == null) {
      return HealthExpectation.DEFAULT.statuses();
    }
    List<?> items = value instanceof List<?> list ? list : List.of(value);
    if (items.isEmpty()) {
      n.problem("expectStatus", value, STATUS_EXPECTED);
      return HealthExpectation.DEFAULT.statuses();
    }
    List<HealthExpectation.StatusRange> out = new ArrayList<>();
    for (int i = 0; i < items.size(); i++) {
      Optional<HealthExpectation.StatusRange> range = range(items.get(i));
      if (range.isPresent()) {
        out.add(range.get());
      } else if (value instanceof List<?>) {
        n.problemAt(n.child("expectStatus") + "[" + i + "]", Node.show(items.get(i)) + " is invalid; expected "
            + ONE_STATUS);
      } else {
        n.problem("expectStatus", value, STATUS_EXPECTED);
      }
    }
    return out.size() == items.size() ? out : HealthExpectation.DEFAULT.statuses();
  }

  private static Optional<HealthExpectation.StatusRange> range(Object item) {
    if (item instanceof String s) {
      return HealthExpectation.StatusRange.parse(s);
    }
    if (item instanceof Number number && number.doubleValue() == Math.rint(number.doubleValue())
        && Math.abs(number.doubleValue()) < 1000) {
      return HealthExpectation.StatusRange.parse(Integer.toString(number.intValue()));
    }
    return Optional.empty();
  }

  /**
   * Whether {@code text} is a {@code Host} value: a host name or IPv4 address, or an IPv6 address
   * in brackets, then optionally {@code :port} with a port from 1 to 65535.
   */
  static boolean isHostHeader(String text) {
    String name = text;
    String port = null;
    if (text.startsWith("[")) {
      int close = text.indexOf(']');
      if (close < 0) {
        return false;
      }
      name = text.substring(1, close);
      String rest = text.substring(close + 1);
      if (!rest.isEmpty()) {
        if (!rest.startsWith(":")) {
          return false;
        }
        port = rest.substring(1);
      }
      if (name.isEmpty() || !name.contains(":") || !name.matches("[0-9A-Fa-f:.]+")) {
        return false;
      }
    } else {
      int colon = text.indexOf(':');
      if (colon >= 0) {
        name = text.substring(0, colon);
        port = text.substring(colon + 1);
      }
      if (!HostName.isValid(name)) {
        return false;
      }
    }
    return port == null || (port.matches("[0-9]{1,5}") && Integer.parseInt(port) >= 1
        && Integer.parseInt(port) <= 65535);
  }
}
