package dev.fairway.config;

import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * What an active health check's response must look like to pass: a status in one of the ranges
 * and, optionally, a body containing a substring (as HAProxy's {@code http-check expect}).
 *
 * <p>Example: with {@code expectStatus ["200-399"]} and {@code expectBody "ok"},
 * {@code unmet(301, "ok")} is empty (passes), {@code unmet(503, "ok")} is
 * {@code "status 503 not in 200-399"} and {@code unmet(200, "starting")} is
 * {@code "body lacks \"ok\""}. The default, {@link #DEFAULT}, accepts any 2xx and any body.
 *
 * @param statuses     the accepted statuses, at least one range
 * @param bodyContains a substring the body must contain, or {@code null} for any body
 */
public record HealthExpectation(List<StatusRange> statuses, String bodyContains) {
  /** Any 2xx status, any body. */
  public static final HealthExpectation DEFAULT = new HealthExpectation(List.of(new StatusRange(200, 299)), null);

  /** The longest accepted {@code expectBody}, in characters. */
  public static final int MAX_BODY_NEEDLE = 1024;

  private static final Pattern RANGE = Pattern.compile("([1-5][0-9][0-9])(?:-([1-5][0-9][0-9]))?");

  public HealthExpectation {
    if (statuses.isEmpty()) {
      throw new IllegalArgumentException("at least one status range");
    }
    statuses = List.copyOf(statuses);
  }

  /**
   * An inclusive range of statuses; a single status has {@code from == to}.
   *
   * <p>Example: {@code StatusRange.parse("200-399")} is {@code [200, 399]} and reads back as
   * {@code "200-399"}; {@code parse("204")} reads back as {@code "204"}; {@code parse("2xx")} and
   * {@code parse("399-200")} are empty.
   */
  public record StatusRange(int from, int to) {
    /** A range {@code NNN} or {@code NNN-MMM} of statuses from 100 to 599, low end first. */
    public static Optional<StatusRange> parse(String text) {
      Matcher m = RANGE.matcher(text.strip());
      if (!m.matches()) {
        return Optional.empty();
      }
      int from = Integer.parseInt(m.group(1));
      int to = m.group(2) == null ? from : Integer.parseInt(m.group(2));
      return from <= to ? Optional.of(new StatusRange(from, to)) : Optional.empty();
    }

    boolean contains(int status) {
      return status >= from && status <= to;
    }

    @Override
    public String toString() {
      return from == to ? Integer.toString(from) : from + "-" + to;
    }
  }

  /** Whether {@code bodyContains} is set, so the check must read (the start of) the body. */
  public boolean needsBody() {
    return bodyContains != null;
  }

  /**
   * Why a response fails this expectation, or empty when it passes. The status is judged first.
   *
   * @param status the response's status
   * @param body   the (start of the) body as text; ignored unless {@link #needsBody()}
   */
  public Optional<String> unmet(int status, String body) {
    if (statuses.stream().noneMatch(r -> r.contains(status))) {
      return Optional.of("status " + status + " not in " + statusText());
    }
    if (bodyContains != null && (body == null || !body.contains(bodyContains))) {
      return Optional.of("body lacks \"" + bodyContains + "\"");
    }
    return Optional.empty();
  }

  /** Whether a response with this status and body passes. */
  public boolean matches(int status, String body) {
    return unmet(status, body).isEmpty();
  }

  /** The accepted statuses as written in config, e.g. {@code 200-299} or {@code 200-299, 404}. */
  public String statusText() {
    return statuses.stream().map(StatusRange::toString).collect(Collectors.joining(", "));
  }
}
