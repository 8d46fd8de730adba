package dev.fairway.table;

/**
 * One active health check's result, as the table takes it.
 *
 * <p>Example: a backend answering {@code 200} with {@code Lame-Duck: true} gives
 * {@code CheckOutcome[status=200, lameDuck=true, passed=false, loadReport=null, failure=null]}; a
 * refused connection gives {@code status = 0} and {@code failure = "connection refused"}.
 *
 * @param status     HTTP status, or 0 when no response arrived
 * @param lameDuck   whether {@code Lame-Duck: true} came with it
 * @param passed     whether the check counts as passing (it then ends a passive ejection early)
 * @param loadReport the {@code endpoint-load-metrics} value, or {@code null}
 * @param failure    why no response arrived, or why the response failed the service's
 *                   expectation (e.g. {@code status 503 not in 200-299}); {@code null} when it met it
 */
public record CheckOutcome(int status, boolean lameDuck, boolean passed, String loadReport, String failure) {
}
