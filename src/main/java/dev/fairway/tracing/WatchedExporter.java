package dev.fairway.tracing;

import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The OTLP exporter, with its failures logged once per outage instead of once per batch: the
 * SDK's own warnings for each failed export and each batch of spans dropped meanwhile are silenced,
 * and this says when exports start failing and when they work again.
 *
 * <p>Example: a collector that is down logs {@code tracing: exporting spans to
 * http://127.0.0.1:4318/v1/traces failed; spans are dropped until it answers} once, however many
 * batches fail; when it is back, {@code tracing: exporting spans works again} once.
 */
final class WatchedExporter implements SpanExporter {
  private static final Logger LOG = LoggerFactory.getLogger(WatchedExporter.class);
  /**
   * The SDK's loggers of failed exports and of spans dropped from a full queue (what an outage
   * causes), kept here so their level holds (the JDK keeps loggers weakly).
   */
  private final List<java.util.logging.Logger> sdkLogs = Stream.of(
      "io.opentelemetry.exporter.otlp.internal.HttpExporter", "io.opentelemetry.sdk.trace.export.BatchSpanProcessor")
      .map(java.util.logging.Logger::getLogger).toList();
  private final SpanExporter delegate;
  private final String endpoint;
  private final AtomicBoolean failing = new AtomicBoolean();

  WatchedExporter(SpanExporter delegate, String endpoint) {
    this.delegate = delegate;
    this.endpoint = endpoint;
    sdkLogs.forEach(l -> l.setLevel(Level.OFF));
  }

  @Override
  public CompletableResultCode export(Collection<SpanData> spans) {
    CompletableResultCode result = delegate.export(spans);
    result.whenComplete(() -> {
      if (!result.isSuccess() && failing.compareAndSet(false, true)) {
        Throwable why = result.getFailureThrowable();
        LOG.warn("tracing: exporting spans to {} failed ({}); spans are dropped until it answers", endpoint,
            why == null ? "no reason given" : why.getMessage());
      } else if (result.isSuccess() && failing.compareAndSet(true, false)) {
        LOG.info("tracing: exporting spans to {} works again", endpoint);
      }
    });
    return result;
  }

  @Override
  public CompletableResultCode flush() {
    return delegate.flush();
  }

  @Override
  public CompletableResultCode shutdown() {
    return delegate.shutdown();
  }
}
