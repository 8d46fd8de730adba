package dev.fairway;

import com.hazelcast.config.Config;
import dev.fairway.cluster.CapacityLeases;
import dev.fairway.cluster.ClientPosition;
import dev.fairway.cluster.ClusterConfig;
import dev.fairway.cluster.ClusterMembership;
import dev.fairway.cluster.NodeName;
import dev.fairway.cluster.RuntimeState;
import dev.fairway.config.ConfigException;
import dev.fairway.config.FairwayConfig;
import dev.fairway.config.SubsettingSettings;
import dev.fairway.control.BalancerVerticle;
import dev.fairway.control.ConfigReloader;
import dev.fairway.metrics.RuntimeMeters;
import dev.fairway.proxy.upstream.UpstreamPool;
import dev.fairway.proxy.tls.TlsProvider;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.VertxBuilder;
import io.vertx.core.VertxOptions;
import io.vertx.micrometer.MicrometerMetricsFactory;
import io.vertx.micrometer.MicrometerMetricsOptions;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;

/**
 * Command line: {@code java -jar fairway.jar [--check | --version] [-conf PATH] [-cluster [-cluster-conf PATH]]}.
 *
 * <p>Example: {@code java -jar target/fairway.jar -conf conf/config.json} starts the proxy; an
 * invalid file prints one line per problem and exits with status 2. With {@code -cluster} it first
 * joins a Vert.x cluster (Hazelcast, {@code conf/cluster.xml} unless {@code -cluster-conf} or
 * {@code FAIRWAY_CLUSTER_CONF} names another file) and takes its subsetting client id and count
 * from the cluster, claimed by its node name ({@code cluster.nodeName}), instead of the config file.
 * {@code --check} validates the file as start-up does and exits 0 or 2 without starting Vert.x or opening a
 * port; {@code --version} prints {@code fairway VERSION}.
 */
public final class Main {
  /** Exit status for a bad command line or an invalid configuration file. */
  public static final int EXIT_CONFIG = 2;
  private static final String USAGE =
      "usage: java -jar fairway.jar [--check | --version] [-conf PATH] [-cluster [-cluster-conf PATH]]";
  private static final long CLUSTER_JOIN_TIMEOUT_S = 120;
  /** Threads of each of Vert.x's two blocking pools (worker, internal). */
  private static final int BLOCKING_THREADS = 4;
  /** The JDK's TLS accepts a client's TLS 1.2 renegotiation (a CPU-cost lever); BoringSSL refuses it. */
  private static final String REJECT_RENEGOTIATION = "jdk.tls.rejectClientInitiatedRenegotiation";

  private Main() {
  }

  public static void main(String[] args) {
    if (System.getProperty(REJECT_RENEGOTIATION) == null) { // before the JDK's TLS reads it, at the first handshake
      System.setProperty(REJECT_RENEGOTIATION, "true");
    }
    Path confPath = Path.of("conf", "config.json");
    boolean cluster = false;
    boolean check = false;
    Path clusterConf = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "-conf", "--conf" -> {
          if (i + 1 >= args.length) {
            usage("-conf needs a path");
          }
          confPath = Path.of(args[++i]);
        }
        case "-cluster", "--cluster" -> cluster = true;
        case "-check", "--check" -> check = true;
        case "-version", "--version" -> {
          System.out.println("fairway " + Version.current());
          return;
        }
        case "-cluster-conf", "--cluster-conf" -> {
          if (i + 1 >= args.length) {
            usage("-cluster-conf needs a path");
          }
          clusterConf = Path.of(args[++i]);
        }
        case "-h", "--help" -> {
          System.out.println(USAGE);
          return;
        }
        default -> usage("unknown argument " + args[i]);
      }
    }
    if (clusterConf != null && !cluster) {
      usage("-cluster-conf needs -cluster");
    }
    FairwayConfig fileConfig = load(confPath);
    checkTlsProvider();
    if (check) {
      System.out.println(ConfigCheck.summary(confPath, fileConfig));
      return;
    }
    BalancerVerticle.ConfigSource source = new BalancerVerticle.ConfigSource(confPath, hashOf(confPath));
    Logger log = LoggerFactory.getLogger(Main.class);
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    RuntimeMeters.bind(registry, UpstreamPool.ALLOCATOR);
    VertxBuilder builder = Vertx.builder();
    // Netty's epoll transport on Linux (NIO elsewhere, or if the native library cannot load).
    // Blocking work is rare and short (file scans, the dashboard's files), so a few threads do:
    // Vert.x's 20 per pool would each start on some later scan and keep their stack and malloc arena.
    VertxOptions options = new VertxOptions().setPreferNativeTransport(true)
        .setWorkerPoolSize(BLOCKING_THREADS).setInternalBlockingPoolSize(BLOCKING_THREADS);
    if (fileConfig.metrics().vertx()) {
      // Installing the factory is what turns Vert.x's meters on (setEnabled alone does not).
      options.setMetricsOptions(new MicrometerMetricsOptions().setEnabled(true).setMeterCacheEnabled(true));
      builder.withMetrics(new MicrometerMetricsFactory(registry));
    }
    builder.with(options);
    Vertx vertx;
    FairwayConfig config = fileConfig;
    ClusterMembership membership = null;
    RuntimeState runtimeState = null;
    if (cluster) {
      Path hazelcastXml = ClusterConfig.resolve(clusterConf, System.getenv());
      HazelcastClusterManager manager;
      String nodeName = NodeName.of(fileConfig, hostName());
      try {
        Config hazelcast = ClusterConfig.load(hazelcastXml);
        ClusterMembership.name(hazelcast, nodeName);
        manager = new HazelcastClusterManager(hazelcast);
      } catch (ClusterConfig.Invalid e) {
        System.err.println("fairway: invalid cluster configuration " + e.getMessage());
        System.exit(EXIT_CONFIG);
        return;
      }
      log.info("joining the cluster described in {}", hazelcastXml);
      try {
        vertx = builder.withClusterManager(manager).buildClustered().await(CLUSTER_JOIN_TIMEOUT_S, TimeUnit.SECONDS);
      } catch (Exception e) {
        log.error("could not join the cluster: {}", e.toString());
        Runtime.getRuntime().halt(1);
        return;
      }
      membership = new ClusterMembership(vertx, manager, nodeName, fileConfig.cluster().reclaimMs());
      runtimeState = new RuntimeState(vertx, manager.getHazelcastInstance());
      ClientPosition position = membership.claim();
      SubsettingSettings fromFile = fileConfig.subsetting();
      log.info("joined the cluster as {} (node {}): this proxy is {}, subsets by {} (config's clientId and "
          + "clientCount ignored)", nodeName, membership.nodeId(), position, fromFile.clusterAlgorithm().configName());
      config = fileConfig.withSubsetting(
          new SubsettingSettings(position.clientId(), position.clientCount(), fromFile.clusterAlgorithm()));
    } else {
      vertx = builder.build();
    }
    ClusterMembership clusterMembership = membership;
    RuntimeState clusterState = runtimeState;
    FairwayConfig running = config;
    Fairway.start(vertx, running, source, registry).onSuccess(fairway -> {
      if (clusterMembership != null) {
        clusterMembership.start();
        clusterState.start();
      }
      CapacityLeases leases = clusterMembership == null ? null
          : CapacityLeases.startFor(clusterMembership, running.cluster(), fairway.slotTable());
      long deadline = running.proxy().drainGraceMs() + running.proxy().drainTimeoutMs() + 5_000;
      Runnable drainAndExit = () -> {
        try {
          fairway.drain().await(deadline, TimeUnit.MILLISECONDS);
          if (leases != null) {
            leases.stop();
          }
          if (clusterMembership != null) {
            clusterState.stop();
            clusterMembership.stop();
          }
          vertx.close().await(10, TimeUnit.SECONDS);
        } catch (Exception e) {
          log.warn("shutdown did not complete cleanly: {}", e.toString());
        }
      };
      for (String name : new String[] {"TERM", "INT"}) {
        Signal.handle(new Signal(name), sig -> new Thread(() -> {
          log.info("SIG{} received", name);
          drainAndExit.run();
          System.exit(0);
        }, "fairway-drain").start());
      }
    }).onFailure(e -> {
      log.error("start-up failed: {}", e.toString());
      vertx.close();
      Runtime.getRuntime().halt(1);
    });
  }

  /** This machine's host name, for a derived {@code cluster.nodeName}; {@code localhost} if unknown. */
  private static String hostName() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (IOException e) {
      return "localhost";
    }
  }

  /** A bad {@code -Dfairway.tls.provider}, or {@code openssl} where it cannot load, exits 2. */
  private static void checkTlsProvider() {
    if (System.getProperty(TlsProvider.PROPERTY) == null) {
      return;
    }
    try {
      TlsProvider.fromSystem();
    } catch (IllegalArgumentException e) {
      System.err.println("fairway: " + e.getMessage());
      System.exit(EXIT_CONFIG);
    }
  }

  /** Reads and validates the configuration, or exits with {@link #EXIT_CONFIG}. */
  static FairwayConfig load(Path path) {
    String text;
    try {
      text = Files.readString(path);
    } catch (NoSuchFileException e) {
      return exitInvalid(path, "$: file not found; expected a JSON config file");
    } catch (IOException e) {
      return exitInvalid(path, "$: cannot read the file (" + e.getMessage() + ")");
    }
    try {
      return ConfigReloader.parse(text, System.getenv());
    } catch (ConfigException e) {
      return exitInvalid(path, e.problems().toArray(String[]::new));
    }
  }

  private static String hashOf(Path path) {
    try {
      return ConfigReloader.shortHash(Files.readString(path));
    } catch (IOException e) {
      return "";
    }
  }

  private static FairwayConfig exitInvalid(Path path, String... problems) {
    System.err.println("fairway: invalid configuration " + path + ":");
    for (String p : problems) {
      System.err.println("  " + p);
    }
    System.exit(EXIT_CONFIG);
    return null;
  }

  private static void usage(String problem) {
    System.err.println("fairway: " + problem);
    System.err.println(USAGE);
    System.exit(EXIT_CONFIG);
  }
}
