package dev.fairway.proxy.tls;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The TLS listener's counters, as {@code /metrics} shows them, each tagged {@code listener="tls"}.
 *
 * <p>Example: a client that completes a full handshake adds 1 to
 * {@code fairway_tls_handshakes_total{listener="tls"}}; the same client coming back with its
 * session (a TLS 1.3 ticket or a TLS 1.2 session id) adds 1 to it again and 1 to
 * {@code fairway_tls_resumed_handshakes_total}, so resumed is the subset of handshakes that skipped
 * the full exchange. One that sends garbage or closes mid-handshake adds 1 to
 * {@code fairway_tls_handshake_failures_total}; a plain-HTTP request on the TLS port adds 1 to
 * {@code fairway_tls_plaintext_requests_total}.
 */
public final class TlsMeters {
  /** The tag every TLS counter carries, so a dashboard can show them per listener. */
  public static final String LISTENER_TAG = "listener";
  private static final String LISTENER = "tls";
  private final Counter handshakes;
  private final Counter resumed;
  private final Counter failures;
  private final Counter plaintext;

  public TlsMeters(MeterRegistry registry) {
    handshakes = counter(registry, "fairway_tls_handshakes", "TLS handshakes completed on the TLS listener, resumed ones included");
    resumed = counter(registry, "fairway_tls_resumed_handshakes",
        "TLS handshakes completed by resuming a session (ticket or session id), a subset of fairway_tls_handshakes_total");
    failures = counter(registry, "fairway_tls_handshake_failures",
        "TLS handshakes that failed: garbage, a truncated handshake, no common protocol, a refused client certificate");
    plaintext = counter(registry, "fairway_tls_plaintext_requests", "Plain-HTTP requests on the TLS port, answered 400");
  }

  private static Counter counter(MeterRegistry registry, String name, String description) {
    return Counter.builder(name).description(description).tag(LISTENER_TAG, LISTENER).register(registry);
  }

  void handshake(boolean wasResumed) {
    handshakes.increment();
    if (wasResumed) {
      resumed.increment();
    }
  }

  void failure() {
    failures.increment();
  }

  void plaintext() {
    plaintext.increment();
  }
}
