package dev.fairway.proxy;

import dev.fairway.config.OverloadSettings;
import dev.fairway.proxy.exchange.OverloadBoard;

import dev.fairway.config.AccessLogSettings;
import dev.fairway.metrics.FairwayMetrics;
import dev.fairway.metrics.HttpMeters;
import dev.fairway.proxy.upstream.UpstreamTlsContexts;
import dev.fairway.slots.SlotTable;
import dev.fairway.tracing.Tracer;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * What every proxy verticle of a process shares.
 *
 * <p>Example: four proxy verticles get the same {@code ProxyShared}, so their requests take
 * slots from one {@link SlotTable} and count against one {@code clientConnections} limit.
 *
 * @param table             the process-wide slot table
 * @param metrics           Fairway's meters
 * @param draining          whether this proxy is shutting down (responses then close keep-alive)
 * @param clientConnections open client connections of the whole process
 * @param accessLog         the access-log settings
 * @param listener          the listening socket that hands connections to the proxy verticles
 * @param httpMeters        Vert.x's HTTP meters, fed by the proxy verticles
 * @param upstreamTls       the TLS contexts of connections to {@code https://} backends
 * @param overload          which fields carry criticality and deadlines
 * @param overloadBoard     every proxy verticle's throttles, for the meters
 * @param lanes             how many proxy verticles there are
 * @param tracer            starts each request's span ({@link Tracer#OFF} when tracing is off)
 */
public record ProxyShared(SlotTable table, FairwayMetrics metrics, BooleanSupplier draining,
                          AtomicInteger clientConnections, AccessLogSettings accessLog,
                          Listener listener, HttpMeters httpMeters, UpstreamTlsContexts upstreamTls,
                          OverloadSettings overload, OverloadBoard overloadBoard, int lanes,
                          Tracer tracer) {
}
