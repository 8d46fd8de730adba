package dev.fairway.balancer;

import dev.fairway.config.BalancingSettings;
import dev.fairway.config.StrategyName;
import dev.fairway.slots.Admission;
import dev.fairway.slots.EndpointSpec;
import dev.fairway.slots.ServiceSlots;
import dev.fairway.slots.ServiceSpec;
import dev.fairway.slots.SlotTable;
import dev.fairway.slots.Waiter;
import dev.fairway.testing.SpreadReport;
import dev.fairway.testing.WorkQueue;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * A deterministic discrete-event model of the spread benchmark ({@code bench/spread.sh}): one
 * proxy with the real {@link SlotTable} (which makes the strategy with
 * {@link Strategies#create}) in front of six single-worker backends, the slow ones taking twice
 * as long per request, fed by open-loop Poisson arrivals whose costs vary 10x. Simulated time
 * only: no sockets, no threads, no clock; one seed gives one result.
 *
 * <p>Example: {@code run(StrategyName.WEIGHTED_ROUND_ROBIN, 0.7, 42)} offers 70 % of the fleet's
 * capacity for 70 simulated seconds and returns each backend's utilization over the last 60.
 *
 * <p>What is modelled the way Fairway does it:
 * <ul>
 *   <li>each backend is a {@link WorkQueue} (the same class the real {@code SpreadBackend} uses):
 *       FIFO, one worker, service time {@code BASE × cost × slowness} with cost uniform in 1..10;
 *       it reports {@code endpoint-load-metrics: TEXT cpu_utilization=<busy/wall over 2 s>,
 *       rps_fractional=<completions/s over 2 s>} on every response and health check;</li>
 *   <li>the proxy keeps the last report per backend and hands it to the balancer every 250 ms
 *       (the observation batch); health checks every 2 s report too; the balancer parses it with
 *       {@link OrcaParser}, feeds a {@link ScoreTracker} per backend (blackout
 *       {@code blackoutMs}) and each second sets {@link CapabilityScore#weights} on the table, as
 *       {@code BalancerVerticle} does;</li>
 *   <li>requests take and release slots in the table, so strategies see active counts,
 *       completions ({@code onComplete} with the request's latency) and freed slots exactly as in
 *       the proxy; a request that finds no slot waits in the table's queue.</li>
 * </ul>
 * Not modelled: network and proxy delays (zero), several proxy verticles (one batch stream).
 */
final class SpreadSimulation {
  static final long MS = 1_000_000L;
  static final long S = 1_000_000_000L;
  /** Service time of one unit of cost on a fast backend. */
  static final long BASE_NANOS = 5 * MS;
  /** Per backend: 1 = fast, 2 = twice as slow (b3 and b6, not first in the list). */
  static final int[] SLOWNESS = {1, 1, 2, 1, 1, 2};
  static final int MAX_COST = 10;
  static final long REPORT_WINDOW_NANOS = 2 * S;
  static final long BATCH_NANOS = 250 * MS;
  static final long TICK_NANOS = 1 * S;
  static final long HEALTH_NANOS = 2 * S;
  static final long WARMUP_NANOS = 10 * S;
  static final long MEASURE_NANOS = 60 * S;
  /** On-proxy capacity per backend by default: large enough that slots never limit. */
  static final int CAPACITY = 1000;
  static final long BLACKOUT_MS = 500;

  /**
   * One run's outcome, per backend over the measurement window.
   *
   * @param utilization busy time / wall time (at most 1)
   * @param demand      service time of the work sent there / wall time (may exceed 1: the queue grows)
   * @param share       fraction of the requests sent there
   */
  record Result(String strategy, double load, double[] utilization, double[] demand, double[] share) {
    double utilizationSpread() {
      return spread(utilization);
    }

    double demandSpread() {
      return spread(demand);
    }

    String row() {
      StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "| %-32s | %3.0f%% |", strategy, load * 100));
      for (double u : utilization) {
        sb.append(String.format(Locale.ROOT, " %.3f |", u));
      }
      sb.append(String.format(Locale.ROOT, " %.3f | %.3f |", utilizationSpread(), demandSpread()));
      return sb.toString();
    }
  }

  static double spread(double[] v) {
    double max = Double.NEGATIVE_INFINITY;
    double min = Double.POSITIVE_INFINITY;
    for (double x : v) {
      max = Math.max(max, x);
      min = Math.min(min, x);
    }
    return max / min;
  }

  /** Requests per second the fleet serves at utilization 1: each backend does 1 / mean service time. */
  static double fleetCapacity() {
    double meanCost = (1 + MAX_COST) / 2.0;
    double c = 0;
    for (int s : SLOWNESS) {
      c += S / (BASE_NANOS * meanCost * s);
    }
    return c;
  }

  private record Event(long at, long seq, Runnable action) {
  }

  private final class Request extends Waiter {
    final long arrival;
    final int cost;

    Request(long arrival, int cost) {
      this.arrival = arrival;
      this.cost = cost;
    }

    @Override
    protected void granted(Endpoint endpoint) {
      at(now, () -> deliver(this, endpoint));
    }

    @Override
    protected void shed() {
    }
  }

  private final StrategyName strategy;
  private final double load;
  private final int capacity;
  private final SplitMix64 random;
  private final PriorityQueue<Event> events = new PriorityQueue<>(
      (a, b) -> a.at != b.at ? Long.compare(a.at, b.at) : Long.compare(a.seq, b.seq));
  private final SlotTable table;
  private final ServiceSlots service;
  private final List<String> ids = new ArrayList<>();
  private final Map<String, Integer> index = new LinkedHashMap<>();
  private final WorkQueue[] backends = new WorkQueue[SLOWNESS.length];
  private final ScoreTracker[] trackers = new ScoreTracker[SLOWNESS.length];
  private final String[] lastReport = new String[SLOWNESS.length];
  private final double[] weights = new double[SLOWNESS.length];
  private final long[] sent = new long[SLOWNESS.length];
  private long seq;
  private long now;

  private SpreadSimulation(StrategyName strategy, double load, long seed, int capacity) {
    this.strategy = strategy;
    this.load = load;
    this.capacity = capacity;
    this.random = new SplitMix64(seed);
    this.table = new SlotTable(seed);
    List<EndpointSpec> specs = new ArrayList<>();
    for (int i = 0; i < SLOWNESS.length; i++) {
      String id = "b" + (i + 1);
      ids.add(id);
      index.put(id, i);
      specs.add(new EndpointSpec(id, "127.0.0.1", 9001 + i, capacity, 1.0, true));
      backends[i] = new WorkQueue(1, REPORT_WINDOW_NANOS, 0);
      trackers[i] = new ScoreTracker(BLACKOUT_MS * MS, ScoreTracker.DEFAULT_EXPIRATION_NANOS,
          CapabilityScore.DEFAULT_ERROR_UTILIZATION_PENALTY);
      weights[i] = 1.0;
    }
    BalancingSettings d = BalancingSettings.DEFAULTS;
    BalancingSettings settings = new BalancingSettings(d.errorWindowMs(), d.ewmaDecayMs(), d.errorPenaltyMs(),
        d.fairShareWindow(), d.fairShareMedian(), BLACKOUT_MS, d.expirationMs(), d.errorUtilizationPenalty());
    table.apply(specs, List.of(new ServiceSpec("spread", strategy, 100_000, 0, ids, settings)), 0);
    service = table.service("spread");
  }

  /** Runs one strategy at {@code load} × {@link #fleetCapacity()} with seeded arrivals and costs. */
  static Result run(StrategyName strategy, double load, long seed) {
    return run(strategy, load, seed, CAPACITY);
  }

  /** The same with {@code capacity} slots per backend: requests beyond them wait in the table's queue. */
  static Result run(StrategyName strategy, double load, long seed, int capacity) {
    return new SpreadSimulation(strategy, load, seed, capacity).run();
  }

  private Result run() {
    double meanGapNanos = S / (load * fleetCapacity());
    long end = WARMUP_NANOS + MEASURE_NANOS;
    long firstArrival = (long) (-Math.log(1 - random.nextDouble()) * meanGapNanos);
    at(firstArrival, () -> arrive(meanGapNanos, end));
    for (long t = BATCH_NANOS; t <= end; t += BATCH_NANOS) {
      at(t, this::flushBatch);
    }
    for (long t = TICK_NANOS; t <= end; t += TICK_NANOS) {
      at(t, this::tick);
    }
    for (int i = 0; i < backends.length; i++) {
      int b = i;
      // first checks spread over the first interval, like the balancer's start-up jitter
      for (long t = HEALTH_NANOS * (i + 1) / backends.length; t <= end; t += HEALTH_NANOS) {
        at(t, () -> feed(b, report(b)));
      }
    }
    long[] busy0 = new long[backends.length];
    long[] assigned0 = new long[backends.length];
    long[] sent0 = new long[backends.length];
    at(WARMUP_NANOS, () -> {
      for (int i = 0; i < backends.length; i++) {
        busy0[i] = backends[i].busyNanos(now);
        assigned0[i] = backends[i].assignedNanos();
        sent0[i] = sent[i];
      }
    });
    while (!events.isEmpty() && events.peek().at <= end) {
      Event e = events.poll();
      now = e.at;
      e.action.run();
    }
    now = end;
    double[] utilization = new double[backends.length];
    double[] demand = new double[backends.length];
    double[] share = new double[backends.length];
    long total = 0;
    for (int i = 0; i < backends.length; i++) {
      total += sent[i] - sent0[i];
    }
    for (int i = 0; i < backends.length; i++) {
      utilization[i] = (backends[i].busyNanos(end) - busy0[i]) / (double) MEASURE_NANOS;
      demand[i] = (backends[i].assignedNanos() - assigned0[i]) / (double) MEASURE_NANOS;
      share[i] = (sent[i] - sent0[i]) / (double) total;
    }
    String label = capacity == CAPACITY ? strategy.configName() : strategy.configName() + ", capacity " + capacity;
    return new Result(label, load, utilization, demand, share);
  }

  private void at(long t, Runnable action) {
    events.add(new Event(t, seq++, action));
  }

  private void arrive(double meanGapNanos, long end) {
    Request r = new Request(now, 1 + random.nextInt(MAX_COST));
    Admission a = table.acquire(service, r, now);
    if (a == Admission.GRANTED) {
      deliver(r, r.endpoint());
    } else if (a != Admission.QUEUED) {
      throw new IllegalStateException("request refused: " + a);
    }
    long next = now + Math.max(1, (long) (-Math.log(1 - random.nextDouble()) * meanGapNanos));
    if (next <= end) {
      at(next, () -> arrive(meanGapNanos, end));
    }
  }

  private void deliver(Request r, Endpoint e) {
    int b = index.get(e.id());
    sent[b]++;
    long done = backends[b].submit(now, BASE_NANOS * r.cost * SLOWNESS[b]);
    at(done, () -> {
      lastReport[b] = report(b);
      table.release(r, now, now - r.arrival, false);
    });
  }

  /** The backend's ORCA header value now, as {@code SpreadBackend} writes it. */
  private String report(int b) {
    return SpreadReport.header(backends[b].utilization(now), backends[b].rate(now));
  }

  private void flushBatch() {
    for (int b = 0; b < lastReport.length; b++) {
      if (lastReport[b] != null) {
        feed(b, lastReport[b]);
        lastReport[b] = null;
      }
    }
  }

  private void feed(int b, String header) {
    OrcaParser.parse(header).ifPresent(r -> trackers[b].update(r, now));
  }

  private void tick() {
    double[] w = CapabilityScore.weights(List.of(trackers), new double[] {1, 1, 1, 1, 1, 1}, now);
    Map<String, Double> changed = new LinkedHashMap<>();
    for (int i = 0; i < w.length; i++) {
      if (Math.abs(w[i] - weights[i]) > 1e-9 * Math.max(1, Math.abs(weights[i]))) {
        weights[i] = w[i];
        changed.put(ids.get(i), w[i]);
      }
    }
    if (!changed.isEmpty()) {
      table.updateWeights(changed);
    }
  }
}
