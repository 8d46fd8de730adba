package dev.fairway;

import dev.fairway.config.ConfigException;
import dev.fairway.config.FairwayConfig;
import dev.fairway.control.BalancerVerticle;
import dev.fairway.control.ConfigReloader;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.micrometer.MicrometerMetricsFactory;
import io.vertx.micrometer.MicrometerMetricsOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;

/**
 * Command line: {@code java -jar fairway.jar [-conf PATH] [-cluster]}.
 *
 * <p>Example: {@code java -jar target/fairway.jar -conf conf/config.json} starts the proxy; an
 * invalid file prints one line per problem and exits with status 2.
 */
public final class Main {
  /** Exit status for a bad command line or an invalid configuration file. */
  public static final int EXIT_CONFIG = 2;

  private Main() {
  }

  public static void main(String[] args) {
    Path confPath = Path.of("conf", "config.json");
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "-conf", "--conf" -> {
          if (i + 1 >= args.length) {
            usage("-conf needs a path");
          }
          confPath = Path.of(args[++i]);
        }
        case "-cluster", "--cluster" -> usage("-cluster is not available yet in this build");
        case "-h", "--help" -> {
          System.out.println("usage: java -jar fairway.jar [-conf PATH] [-cluster]");
          return;
        }
        default -> usage("unknown argument " + args[i]);
      }
    }
    FairwayConfig config = load(confPath);
    BalancerVerticle.ConfigSource source = new BalancerVerticle.ConfigSource(confPath, hashOf(confPath));
    Logger log = LoggerFactory.getLogger(Main.class);
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    Vertx vertx = Vertx.builder()
        .with(new VertxOptions().setMetricsOptions(new MicrometerMetricsOptions()
            .setEnabled(config.metrics().vertx()).setMeterCacheEnabled(true)))
        .withMetrics(new MicrometerMetricsFactory(registry))
        .build();
    Fairway.start(vertx, config, source, registry).onSuccess(fairway -> {
      long deadline = config.proxy().drainGraceMs() + config.proxy().drainTimeoutMs() + 5_000;
      Runnable drainAndExit = () -> {
        try {
          fairway.drain().await(deadline, TimeUnit.MILLISECONDS);
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
    System.err.println("usage: java -jar fairway.jar [-conf PATH] [-cluster]");
    System.exit(EXIT_CONFIG);
  }
}
