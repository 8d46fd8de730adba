package dev.fairway.proxy.tls;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The TLS listener's counters, as {@code /metrics} shows them.
 *
 * <p>Example: a client that completes a handshake adds 1 to {@code fairway_tls_handshakes_total};
 * one that sends garbage or closes mid-handshake adds 1 to
 * {@code fairway_tls_handshake_failures_total}; a plain-HTTP request on the TLS port adds 1 to
 * {@code fairway_tls_plaintext_requests_total}.
 */
public final class TlsMeters {
  private final Counter handshakes;
  private final Counter failures;
  private final Counter plaintext;

  public TlsMeters(MeterRegistry registry) {
    handshakes = Counter.builder("fairway_tls_handshakes").description("TLS handshakes completed on the TLS listener")
        .register(registry);
    failures = Counter.builder("fairway_tls_handshake_failures")
        .description("TLS handshakes that failed: garbage, a truncated handshake, no common protocol, a refused client certificate")
        .register(registry);
    plaintext = Counter.builder("fairway_tls_plaintext_requests")
        .description("Plain-HTTP requests on the TLS port, answered 400").register(registry);
  }

  void handshake() {
    handshakes.increment();
  }

  void failure() {
    failures.increment();
  }

  void plaintext() {
    plaintext.increment();
  }
}
