package dev.fairway.tracing;

import dev.fairway.config.TracingSettings;
import dev.fairway.proxy.wire.ClientRequest;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceStateBuilder;
import io.opentelemetry.context.Context;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import io.vertx.core.Vertx;
import io.vertx.core.internal.VertxInternal;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tracing on: one OpenTelemetry SDK span (kind SERVER) per request, continuing the client's trace,
 * handed to a {@link BatchSpanProcessor} that exports over OTLP/HTTP from its own thread. Ending a
 * span only queues it (a full queue drops it), so the event loop never waits for the collector.
 *
 * <p>Example: {@code of(vertx, settings)} with {@code endpoint} set builds the SDK and closes it
 * (flushing what is queued) when {@code vertx} closes; without it, it is {@link Tracer#OFF}. All
 * tries of a request share its one span: each backend sees the same {@code traceparent}.
 */
public final class OtelTracer implements Tracer {
  private static final Logger LOG = LoggerFactory.getLogger(OtelTracer.class);
  static final AttributeKey<String> SERVICE = AttributeKey.stringKey("fairway.service");
  static final AttributeKey<String> METHOD = AttributeKey.stringKey("http.request.method");
  static final AttributeKey<String> PATH = AttributeKey.stringKey("url.path");
  static final AttributeKey<String> QUERY = AttributeKey.stringKey("url.query");
  static final AttributeKey<String> REQUEST_ID = AttributeKey.stringKey("fairway.request_id");

  private final io.opentelemetry.api.trace.Tracer tracer;

  private OtelTracer(io.opentelemetry.api.trace.Tracer tracer) {
    this.tracer = tracer;
  }

  /** The tracer {@code settings} ask for: {@link Tracer#OFF} without an endpoint. */
  public static Tracer of(Vertx vertx, TracingSettings settings) {
    if (!settings.on()) {
      return Tracer.OFF;
    }
    SdkTracerProvider provider = provider(settings);
    ((VertxInternal) vertx).addCloseHook(done -> provider.shutdown().whenComplete(done::succeed));
    LOG.info("tracing: spans of {} (sample ratio {}) exported to {}", settings.serviceName(), settings.sampleRatio(),
        settings.endpoint());
    return new OtelTracer(provider.get("dev.fairway"));
  }

  private static SdkTracerProvider provider(TracingSettings s) {
    Duration timeout = Duration.ofMillis(s.exportTimeoutMs());
    OtlpHttpSpanExporter otlp = OtlpHttpSpanExporter.builder().setEndpoint(s.endpoint()).setTimeout(timeout)
        .setConnectTimeout(timeout).setMeterProvider(io.opentelemetry.api.metrics.MeterProvider::noop).build();
    BatchSpanProcessor batches = BatchSpanProcessor.builder(new WatchedExporter(otlp, s.endpoint()))
        .setMaxQueueSize(s.maxQueueSize()).setMaxExportBatchSize(s.maxBatchSize())
        .setScheduleDelay(Duration.ofMillis(s.scheduleDelayMs())).setExporterTimeout(timeout)
        .setMeterProvider(io.opentelemetry.api.metrics.MeterProvider::noop).build();
    Resource resource = Resource.getDefault().merge(Resource.create(Attributes.of(
        AttributeKey.stringKey("service.name"), s.serviceName())));
    return SdkTracerProvider.builder().setResource(resource).addSpanProcessor(batches)
        .setSampler(Sampler.parentBased(Sampler.traceIdRatioBased(s.sampleRatio()))).build();
  }

  @Override
  public TraceSpan start(ClientRequest request, String service, String requestId) {
    TraceParent parent = TraceParent.parse(request.field(TraceParent.HEADER));
    String target = request.uri();
    int query = target.indexOf('?');
    SpanBuilder b = tracer.spanBuilder(service == null ? "fairway" : "fairway " + service).setSpanKind(SpanKind.SERVER)
        .setAttribute(METHOD, request.method().name())
        .setAttribute(PATH, query < 0 ? target : target.substring(0, query)).setAttribute(REQUEST_ID, requestId);
    if (service != null) {
      b.setAttribute(SERVICE, service);
    }
    if (query >= 0) {
      b.setAttribute(QUERY, target.substring(query + 1));
    }
    String state = request.field(TraceState.HEADER);
    boolean keepState = parent != null && state != null && TraceState.valid(state);
    if (parent == null) {
      b.setNoParent();
    } else {
      b.setParent(Context.root().with(Span.wrap(SpanContext.createFromRemoteParent(parent.traceId(),
          parent.parentId(), TraceFlags.fromByte((byte) parent.flags()),
          keepState ? otelState(state) : io.opentelemetry.api.trace.TraceState.getDefault()))));
    }
    Span span = b.startSpan();
    SpanContext sc = span.getSpanContext();
    request.forwardField(TraceParent.HEADER, TraceParent.format(sc.getTraceId(), sc.getSpanId(), sc.getTraceFlags().asByte()));
    if (state != null && !keepState) {
      request.forwardField(TraceState.HEADER, null); // it belonged to no trace we continue, or is malformed
    }
    return span.isRecording() ? new OtelSpan(span) : TraceSpan.NONE;
  }

  /**
   * A valid {@code tracestate} as the SDK's, members in their order, so the exported span carries
   * it: {@code "congo=t61,rojo=00f0"} has congo first. The builder puts each new member in front,
   * hence the reverse walk.
   */
  static io.opentelemetry.api.trace.TraceState otelState(String value) {
    TraceStateBuilder b = io.opentelemetry.api.trace.TraceState.builder();
    String[] members = value.split(",");
    for (int i = members.length - 1; i >= 0; i--) {
      String m = members[i].trim();
      int eq = m.indexOf('=');
      if (eq > 0) {
        b.put(m.substring(0, eq), m.substring(eq + 1));
      }
    }
    return b.build();
  }
}
