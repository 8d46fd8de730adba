package dev.fairway.slots;

import dev.fairway.balancer.Endpoint;
import dev.fairway.balancer.WeightEpoch;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the balancer wants a backend to be in the slot table.
 *
 * <p>Example: {@code new EndpointSpec("b1", "127.0.0.1", 9001, 3, 1.0, true)}: three slots, plain
 * weight, taking requests.
 *
 * @param id        backend id
 * @param host      host to connect to
 * @param port      port to connect to
 * @param capacity  on-proxy capacity
 * @param weight    capability score for weighted strategies
 * @param available healthy and not lame duck, ejected or draining
 * @param tls       whether connections to it use TLS (an {@code https://} URL)
 * @param h2c       whether connections to it speak HTTP/2 with prior knowledge (an {@code h2c://} URL)
 */
public record EndpointSpec(String id, String host, int port, int capacity, double weight, boolean available,
                           boolean tls, boolean h2c) {

  /** An HTTP/1.1 backend ({@code https://} when {@code tls}). */
  public EndpointSpec(String id, String host, int port, int capacity, double weight, boolean available, boolean tls) {
    this(id, host, port, capacity, weight, available, tls, false);
  }

  /** A cleartext backend. */
  public EndpointSpec(String id, String host, int port, int capacity, double weight, boolean available) {
    this(id, host, port, capacity, weight, available, false, false);
  }

  /**
   * Makes {@code endpoints} (by id) match {@code specs}: creates, updates or drops backends; a
   * dropped one stops taking requests, one whose address or scheme changed is a new endpoint. A backend that
   * joins a {@code running} table, or that the balancer gives back, is let go by {@code holds}.
   *
   * @return the backends that joined a running table or became available again
   */
  static List<Endpoint> applyAll(List<EndpointSpec> specs, Map<String, Endpoint> endpoints, WeightEpoch epoch,
                                 boolean running, Holds holds) {
    Map<String, Endpoint> keep = new HashMap<>();
    List<Endpoint> returning = new ArrayList<>();
    for (EndpointSpec spec : specs) {
      Endpoint e = endpoints.get(spec.id());
      boolean fresh = e == null || !e.host().equals(spec.host()) || e.port() != spec.port() || e.tls() != spec.tls()
          || e.h2c() != spec.h2c();
      if (fresh) {
        e = new Endpoint(spec.id(), spec.host(), spec.port(), spec.tls(), spec.h2c(), epoch);
      }
      if (spec.available() && (fresh ? running : !e.available())) {
        returning.add(e);
        holds.release(e);
      }
      e.setCapacity(spec.capacity());
      e.setWeight(spec.weight());
      e.setAvailable(spec.available());
      keep.put(spec.id(), e);
    }
    for (Endpoint gone : endpoints.values()) {
      if (keep.get(gone.id()) != gone) {
        gone.setAvailable(false);
      }
    }
    endpoints.clear();
    endpoints.putAll(keep);
    return returning;
  }
}
