package dev.fairway.control;

import dev.fairway.testing.TestVertx;
import static dev.fairway.testing.TestConfig.backend;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.Fairway;
import dev.fairway.testing.RollingRestartDrill;
import dev.fairway.testing.TestConfig;
import io.vertx.core.Vertx;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Issue 4's headline, small: continuous load at concurrency 20 through a real Fairway to three
 * real backend processes, each restarted in turn the way real servers shut down (lame duck by
 * API from the SIGTERM handler, then stop accepting, answer open keep-alive connections with
 * {@code Connection: close}, finish in-flight requests, exit; DELETE the lame duck on start).
 * No request may fail and none may take 0.3 s or longer. The larger run, side by side with
 * HAProxy, is {@code bench/rolling-restart.sh}.
 */
class RollingRestartIT {
  private static final String TOKEN = "test-token-0123456789";

  @Test
  void rollingRestartOfEveryBackendServesZeroErrorsAndNoSlowRequest() throws Exception {
    List<Integer> ports = RollingRestartDrill.freePorts(4);
    int adminPort = ports.get(3);
    Vertx vertx = TestVertx.create();
    TestConfig config = TestConfig.service("s", backend("b1", ports.get(0), 100), backend("b2", ports.get(1), 100),
        backend("b3", ports.get(2), 100)).healthCheck(250, 200, 1, 2);
    config.json().getJsonObject("admin").put("port", adminPort);
    try {
      Fairway fw = Fairway.start(vertx, config.build()).await(10, TimeUnit.SECONDS);
      RollingRestartDrill.Options options = new RollingRestartDrill.Options("fairway",
          "http://127.0.0.1:" + fw.proxyPort() + "/", ports.subList(0, 3), "http://127.0.0.1:" + adminPort, TOKEN,
          20, 2000, 2500, 20, RollingRestartDrill.testClasspath(), System.out);
      RollingRestartDrill.Result r;
      try (RollingRestartDrill drill = new RollingRestartDrill(options)) {
        drill.startBackends();
        r = drill.run();
      }
      RollingRestartDrill.print(r, System.out);

      assertThat(r.requests()).as("measured requests").isGreaterThanOrEqualTo(2000);
      assertThat(r.errors()).as("failed requests: %s", r.errorKinds()).isZero();
      assertThat(r.max()).as("slowest request, ms; slowest: %s; timeline: %s", r.slowest(), r.events())
          .isLessThan(300.0);
      for (String id : List.of("b1", "b2", "b3")) {
        assertThat(r.served().get("after b3 restart")).as("every backend serves again at the end")
            .containsKey(id);
      }
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }
}
