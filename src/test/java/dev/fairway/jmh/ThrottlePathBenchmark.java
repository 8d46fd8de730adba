package dev.fairway.jmh;

import dev.fairway.overload.AdaptiveThrottle;
import dev.fairway.overload.Criticality;
import dev.fairway.overload.ServiceTime;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * What adaptive throttling (on by default) costs one request on its event loop: the decision,
 * the count when the answer comes, the accepted answer, the read-backs the meters take, and the
 * service-time sample; time advances 1 µs per request, so a bucket of the 2-minute window
 * changes every 12,000 requests, as at 12,000 requests/s per loop.
 *
 * <p>Example: {@code bench/jmh.sh ThrottlePath -f 1 -wi 3 -i 5} gives ns per request.
 */
@State(Scope.Thread)
public class ThrottlePathBenchmark {
  private final AdaptiveThrottle throttle = new AdaptiveThrottle(2, TimeUnit.MINUTES.toNanos(2), 10);
  private final ServiceTime serviceTime = new ServiceTime(0.25);
  private long now = 1_000_000_000L;

  @Benchmark
  public double request() {
    now += 1_000;
    boolean sent = throttle.decide(Criticality.CRITICAL, now, 0.5);
    throttle.count(Criticality.CRITICAL, now, sent);
    throttle.accepted(now);
    serviceTime.sample(900_000 + (now & 0xffff));
    return throttle.requests(now) + throttle.accepts(now) + throttle.rejectProbability(now) + serviceTime.nanos();
  }
}
