package dev.fairway.proxy.exchange;

import dev.fairway.accesslog.AccessLog;
import dev.fairway.balancer.Endpoint;
import dev.fairway.config.EdgeLimits;
import dev.fairway.metrics.FairwayMetrics;
import dev.fairway.metrics.HttpMeters;
import dev.fairway.proxy.upstream.UpstreamPool;
import dev.fairway.slots.SlotTable;
import dev.fairway.tracing.Tracer;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * What every exchange of one event loop (a lane) needs, given once by the proxy verticle.
 *
 * <p>Example: lane 1's exchanges take slots from the process's {@code table} as lane 1, borrow
 * backend connections from lane 1's {@code pool}, arm their response deadlines in lane 1's
 * {@code deadlines} and count completions in lane 1's {@code tally}.
 *
 * @param lane      the event loop's index in the slot table
 * @param table     the process-wide slot table
 * @param pool      this lane's backend connections
 * @param deadlines this lane's response and slow-client deadlines
 * @param tally     this lane's completions, sent to the balancer in batches
 * @param metrics   Fairway's meters
 * @param httpMeters Vert.x's HTTP meters ({@link HttpMeters#on()} false when off)
 * @param accessLog the access log, or {@code null} when it is off
 * @param limits    the listener's edge limits
 * @param draining  whether the proxy is shutting down (responses then close keep-alive)
 * @param lameDuck  told when a backend answers {@code Lame-Duck: true}
 * @param overload  this lane's throttles and retry budgets, and the fields of criticality and deadlines
 * @param tracer    starts each request's span ({@link Tracer#OFF} when tracing is off)
 */
public record ExchangeContext(int lane, SlotTable table, UpstreamPool pool, ResponseDeadlines deadlines, Tally tally,
                              FairwayMetrics metrics, HttpMeters httpMeters, AccessLog accessLog, EdgeLimits limits,
                              BooleanSupplier draining, Consumer<Endpoint> lameDuck, OverloadLane overload,
                              Tracer tracer) {
}
