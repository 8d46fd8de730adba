package dev.fairway.control;

import dev.fairway.config.DnsDiscovery;
import dev.fairway.discovery.Answers;
import dev.fairway.discovery.Changes;
import dev.fairway.discovery.Discovered;
import dev.fairway.discovery.SrvAnswer;
import dev.fairway.health.BackendState;
import io.netty.resolver.dns.DnsNameResolverTimeoutException;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.dns.DnsClient;
import io.vertx.core.dns.DnsClientOptions;
import io.vertx.core.dns.DnsException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps one service's discovered backends in step with its DNS name: looks it up, turns the answer
 * into add-backends and remove-backend commands for this member's balancer alone (never relayed to
 * the cluster: each member resolves for itself), and looks up again after {@code refreshMs}, sooner
 * when the answer's TTL is shorter (SRV through Vert.x's DNS client, A through {@link ARecordQuery},
 * which reports TTLs).
 *
 * <p>Example: {@code api.internal} answers 10.0.0.1, 10.0.0.2, 10.0.0.3: three backends join
 * service {@code api} (each serves once a health check passes). The next answer is 10.0.0.2,
 * 10.0.0.3, 10.0.0.4: {@code api-10.0.0.1-8080} drains as a lame duck would and goes, 10.0.0.4
 * joins. A lookup that fails or comes back empty keeps the backends and logs one warning, e.g.
 * {@code service api: DNS lookup of A api.internal failed (SERVFAIL); keeping its 3 discovered
 * backends}, and one line again when the error changes or the lookups recover.
 */
final class DnsWatch {
  private static final Logger LOG = LoggerFactory.getLogger(DnsWatch.class);

  private final Vertx vertx;
  private final String service;
  private final DnsDiscovery discovery;
  /** SRV lookups ({@code null} for A: then {@link #aRecords} resolves the name). */
  private final DnsClient client;
  /** A lookups with TTLs: the name's (A), or SRV targets' from the discovery's own server ({@code null} else). */
  private final ARecordQuery aRecords;
  private final long queryTimeoutMs;
  private final Consumer<BalancerCommand> apply;
  private final BiFunction<String, String, BackendState> state;
  /** What this watch asked the table for, by id; an id the service no longer lists is dropped. */
  private final Map<String, Discovered> mine;
  private long timer = -1;
  private boolean stopped;
  /** The last failure logged, {@code null} while lookups succeed. */
  private String failing;

  /**
   * @param apply     runs a command on this member's balancer
   * @param state     the state of a backend in a service, {@code null} if the service does not list it
   * @param inherited the backends an earlier watch of the same service discovered
   */
  DnsWatch(Vertx vertx, String service, DnsDiscovery discovery, Consumer<BalancerCommand> apply,
           BiFunction<String, String, BackendState> state, Map<String, Discovered> inherited) {
    this.vertx = vertx;
    this.service = service;
    this.discovery = discovery;
    this.apply = apply;
    this.state = state;
    this.mine = new HashMap<>(inherited);
    DnsClientOptions options = new DnsClientOptions();
    if (!discovery.serverHost().isEmpty()) {
      options.setHost(discovery.serverHost()).setPort(discovery.serverPort());
    }
    this.queryTimeoutMs = Math.min(5000, discovery.refreshMs());
    boolean a = discovery.type().equals(DnsDiscovery.A);
    boolean ownServer = !discovery.serverHost().isEmpty();
    this.client = a ? null : vertx.createDnsClient(options.setQueryTimeout(queryTimeoutMs));
    // SRV targets go through the discovery's server too when it has one, except for https, whose
    // certificates name the target rather than its address.
    this.aRecords = a || ownServer && !discovery.scheme().equals("https") ? new ARecordQuery(vertx,
        ownServer ? new InetSocketAddress(discovery.serverHost(), discovery.serverPort()) : null, queryTimeoutMs) : null;
  }

  DnsDiscovery discovery() {
    return discovery;
  }

  /** The backends discovered so far (draining ones included until they are gone). */
  Map<String, Discovered> discovered() {
    return Map.copyOf(mine);
  }

  void start() {
    lookup();
  }

  void stop() {
    stopped = true;
    if (timer >= 0) {
      vertx.cancelTimer(timer);
    }
    if (client != null) {
      client.close();
    }
    if (aRecords != null) {
      aRecords.close();
    }
  }

  private void lookup() {
    timer = -1;
    answer().onComplete(ar -> {
      if (stopped) {
        return;
      }
      long nextMs = discovery.refreshMs();
      if (ar.failed()) {
        failed(describe(ar.cause()));
      } else if (ar.result().backends().isEmpty()) {
        failed("no records");
      } else {
        nextMs = Answers.nextLookupMs(discovery.refreshMs(), ar.result().minTtlSeconds());
        update(ar.result().backends());
      }
      timer = vertx.setTimer(nextMs, id -> lookup());
    });
  }

  /** One answer: its backends, and its shortest TTL (empty when it has no records). */
  private record Answer(List<Discovered> backends, OptionalLong minTtlSeconds) {
  }

  private Future<Answer> answer() {
    if (client == null) {
      return aRecords.resolve(discovery.name()).map(records -> new Answer(
          Answers.fromA(service, discovery, records.stream().map(ARecordQuery.Address::ip).toList()),
          records.stream().mapToLong(ARecordQuery.Address::ttlSeconds).min()));
    }
    return client.resolveSRV(discovery.name()).compose(records -> {
      List<SrvAnswer> answers = records.stream()
          .map(r -> new SrvAnswer(r.priority(), r.weight(), r.port(), r.target(), r.ttl())).toList();
      return aRecords == null ? Future.succeededFuture(answers) : new SrvTargets(aRecords).resolve(answers);
    }).map(answers -> {
      OptionalLong ttl = answers.isEmpty() ? OptionalLong.empty()
          : OptionalLong.of(answers.stream().mapToLong(SrvAnswer::ttlSeconds).min().getAsLong());
      return new Answer(Answers.fromSrv(service, discovery, answers), ttl);
    });
  }

  /**
   * A failure in words that stay the same while the same thing goes wrong (a timeout's message
   * names the query id, which changes with every lookup): {@code SERVFAIL}, {@code no answer
   * within 1000 ms}, else the exception's class and message.
   */
  private String describe(Throwable cause) {
    if (cause instanceof DnsException e) {
      return e.code().name();
    }
    if (cause instanceof DnsNameResolverTimeoutException) {
      return "no answer within " + queryTimeoutMs + " ms";
    }
    return cause.getClass().getSimpleName() + ": " + cause.getMessage();
  }

  private void failed(String why) {
    if (why.equals(failing)) {
      return;
    }
    failing = why;
    LOG.warn("service {}: DNS lookup of {} failed ({}); keeping its {} discovered backends", service,
        label(), why, current(new HashSet<>()).size());
  }

  private void update(List<Discovered> answer) {
    Set<String> draining = new HashSet<>();
    Changes changes = Changes.between(current(draining), draining, answer);
    if (failing != null) {
      LOG.info("service {}: DNS lookups of {} work again", service, label());
      failing = null;
    }
    if (changes.none()) {
      return;
    }
    changes.put().forEach(d -> mine.put(d.id(), d));
    if (!changes.put().isEmpty()) {
      JsonArray body = new JsonArray();
      changes.put().forEach(d -> body.add(new JsonObject().put("id", d.id()).put("url", d.url())
          .put("capacity", d.capacity()).put("weight", d.weight())));
      apply.accept(new BalancerCommand.AddBackends(service, body));
    }
    changes.remove().forEach(id -> apply.accept(new BalancerCommand.RemoveBackend(service, id)));
    LOG.info("service {}: {} answered {} backends: added or updated {}, removed {}", service, label(),
        answer.size(), changes.put().stream().map(Discovered::id).toList(), changes.remove());
  }

  /**
   * The discovered backends the service lists and that serve (not draining); fills {@code draining}
   * with those that drain and forgets those the table no longer has.
   */
  private Map<String, Discovered> current(Set<String> draining) {
    Map<String, Discovered> out = new HashMap<>();
    for (Discovered d : List.copyOf(mine.values())) {
      BackendState s = state.apply(service, d.id());
      if (s == null) {
        mine.remove(d.id());
      } else if (s == BackendState.DRAINING) {
        draining.add(d.id());
      } else {
        out.put(d.id(), d);
      }
    }
    return out;
  }

  private String label() {
    return discovery.type() + " " + discovery.name();
  }
}
